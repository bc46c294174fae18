/**
 * Every icon the site draws, from one module: the pages that load on demand then share one
 * chunk of icons instead of a chunk per icon (each shared by a different set of pages), which
 * made a first visit fetch some forty files of a few hundred bytes. Bound here, not re-exported:
 * the bundler sees through a re-export and splits the icons again. Biome refuses `lucide-react`
 * anywhere else (biome.json), so a new icon is added here.
 */
import * as lucide from "lucide-react";

export type { LucideIcon } from "lucide-react";
export const Anchor = lucide.Anchor;
export const AppWindow = lucide.AppWindow;
export const ArrowDownToLine = lucide.ArrowDownToLine;
export const ArrowLeft = lucide.ArrowLeft;
export const ArrowRight = lucide.ArrowRight;
export const Ban = lucide.Ban;
export const Bell = lucide.Bell;
export const BellOff = lucide.BellOff;
export const BottleWine = lucide.BottleWine;
export const CalendarX = lucide.CalendarX;
export const Check = lucide.Check;
export const ChevronDown = lucide.ChevronDown;
export const CircleCheck = lucide.CircleCheck;
export const CircleQuestionMark = lucide.CircleQuestionMark;
export const CircleX = lucide.CircleX;
export const Clock = lucide.Clock;
export const CloudLightning = lucide.CloudLightning;
export const Cookie = lucide.Cookie;
export const Compass = lucide.Compass;
export const Earth = lucide.Earth;
export const Eye = lucide.Eye;
export const EyeOff = lucide.EyeOff;
export const Flag = lucide.Flag;
export const Globe = lucide.Globe;
export const HandHeart = lucide.HandHeart;
export const Heart = lucide.Heart;
export const HeartHandshake = lucide.HeartHandshake;
export const Hourglass = lucide.Hourglass;
export const House = lucide.House;
export const Inbox = lucide.Inbox;
export const Info = lucide.Info;
export const KeyRound = lucide.KeyRound;
export const Languages = lucide.Languages;
export const Leaf = lucide.Leaf;
export const LifeBuoy = lucide.LifeBuoy;
export const Lightbulb = lucide.Lightbulb;
export const LoaderCircle = lucide.LoaderCircle;
export const Lock = lucide.Lock;
export const LogIn = lucide.LogIn;
export const LogOut = lucide.LogOut;
export const Mail = lucide.Mail;
export const MapPin = lucide.MapPin;
export const Menu = lucide.Menu;
export const MessagesSquare = lucide.MessagesSquare;
export const MonitorSmartphone = lucide.MonitorSmartphone;
export const PenLine = lucide.PenLine;
export const Plus = lucide.Plus;
export const Redo2 = lucide.Redo2;
export const RotateCcw = lucide.RotateCcw;
export const Sailboat = lucide.Sailboat;
export const Search = lucide.Search;
export const Send = lucide.Send;
export const SendHorizontal = lucide.SendHorizontal;
export const ShieldAlert = lucide.ShieldAlert;
export const ShieldBan = lucide.ShieldBan;
export const ShieldCheck = lucide.ShieldCheck;
export const SkipForward = lucide.SkipForward;
export const Trash2 = lucide.Trash2;
export const TriangleAlert = lucide.TriangleAlert;
export const Undo2 = lucide.Undo2;
export const UserPlus = lucide.UserPlus;
export const UserRound = lucide.UserRound;
export const Users = lucide.Users;
export const VenetianMask = lucide.VenetianMask;
export const VolumeX = lucide.VolumeX;
export const Waves = lucide.Waves;
export const WifiOff = lucide.WifiOff;
export const X = lucide.X;
