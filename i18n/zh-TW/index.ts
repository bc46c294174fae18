import type { Translation } from "../i18n-types";
import { auth } from "./pages/auth";
import { contact } from "./pages/contact";
import { create } from "./pages/create";
import { discover } from "./pages/discover";
import { faq } from "./pages/faq";
import { home } from "./pages/home";
import { moderation } from "./pages/moderation";
import { myBottles } from "./pages/my-bottles";
import { pow } from "./pages/pow";
import { privacy } from "./pages/privacy";
import { publicBottles } from "./pages/public-bottles";
import { randomChat } from "./pages/random-chat";
import { resting } from "./pages/resting";
import { characters, report, translation } from "./pages/shared";
import { terms } from "./pages/terms";

const zhTW = {
  meta: {
    description: "寫下一則匿名訊息，讓它隨波漂流，並拾起世界某處陌生人寄出的瓶中信。",
    titles: {
      home: "Tidings · 瓶中信",
      create: "寫一封信 · Tidings",
      discover: "尋找瓶子 · Tidings",
      about: "關於 · Tidings",
      privacy: "隱私權政策 · Tidings",
      terms: "服務條款 · Tidings",
      contact: "聯絡我們 · Tidings",
      faq: "常見問題 · Tidings",
      publicBottles: "公開瓶子 · Tidings",
      randomChat: "隨機聊天 · Tidings",
      myBottles: "我的瓶子 · Tidings",
      auth: "登入 · Tidings",
      notFound: "找不到頁面 · Tidings",
      moderation: "內容管理 · Tidings",
      forbidden: "無法存取 · Tidings",
    },
  },
  nav: {
    home: "首頁",
    create: "寫信",
    discover: "探索",
    randomChat: "隨機聊天",
    myBottles: "我的瓶子",
    about: "關於",
    faq: "常見問題",
    menu: "選單",
    main: "主選單",
    languageCurrent: "語言：{language}",
    skipToContent: "跳至主要內容",
    signIn: "登入",
  },
  languages: {
    en: "English",
    zhTW: "繁體中文",
  },
  footer: {
    tagline: "匿名的心聲，隨潮汐漂向遠方。",
    pages: "頁面",
    about: "關於",
    privacy: "隱私權",
    terms: "條款",
    contact: "聯絡我們",
    faq: "常見問題",
    rights: "© {year} Tidings 版權所有。",
    website: "網站",
    email: "電子郵件",
  },
  common: {
    loading: "載入中…",
    returnHome: "返回首頁",
    goBack: "返回上一頁",
    close: "關閉",
    cancel: "取消",
    notifications: "通知（Alt+T）",
    closeNotification: "關閉通知",
    tryAgain: "再試一次",
    offline: "你目前離線，正在等待網路恢復連線…",
    noScript:
      "Tidings 需要 JavaScript 才能運作。請在瀏覽器設定中開啟 JavaScript，然後重新載入此頁面。",
    cookies: {
      title: "你的瀏覽器封鎖了本站的 Cookie",
      create:
        "丟瓶子需要 Cookie：本站靠 Cookie 記住你對年齡問題的回答，以及「我的瓶子」裡你丟出的瓶子。請允許本站使用 Cookie，再把瓶子丟進大海；你寫的內容會留在這個頁面上。",
      account:
        "登入需要 Cookie：本站靠 Cookie 讓你保持登入。請允許本站使用 Cookie，再登入或註冊帳號。",
      accountRefused:
        "你的瀏覽器封鎖了本站的 Cookie，而登入需要 Cookie。請允許本站使用 Cookie 後再試一次。",
      myBottles:
        "本站靠 Cookie 認出你丟出的瓶子，所以這裡無法顯示。請允許本站使用 Cookie，然後重新載入此頁面。",
      chat: "聊天需要 Cookie：本站靠 Cookie 在一則則訊息之間認出你。請允許本站使用 Cookie，然後重新載入此頁面。",
    },
    reload: "重新載入",
    pageFailed: {
      title: "無法顯示這個頁面",
      body: "載入時出了點問題，重新載入頁面通常就能解決。",
    },
  },
  errors: {
    required: "請填寫此欄位。",
    tooLong: "請勿超過 {limit} 個字元。",
    tooShort: "請至少輸入 {limit} 個字元。",
    invalidEmail: "請輸入有效的電子郵件地址，例如 name@example.com。",
    invalid: "請檢查此欄位。",
    rateLimited: "請求過於頻繁，請於 {seconds} 秒後再試。",
    tooLarge: "內容太長，無法送出。",
    network: "無法連線到 Tidings，請檢查網路連線後再試。",
    generic: "發生錯誤，請稍後再試。",
    usernameFormat: "只能使用英文字母、數字及 _ - . 符號。",
    usernameTaken: "這個使用者名稱已有人使用，請換一個。",
    passwordIsUsername: "密碼不能與使用者名稱相同。",
    passwordsMismatch: "兩次輸入的密碼不一致。",
    invalidCredentials: "使用者名稱或密碼錯誤。",
    wrongPassword: "密碼不正確。",
    rateLimitedMinutes: "嘗試次數過多，請於 {minutes} 分鐘後再試。",
    unauthorized: "請先登入。",
    forbidden: "只有 Tidings 的管理者可以使用。",
    ageConfirmationRequired: "請先回答年齡問題。",
    ageRefused: "抱歉，依你的年齡，目前無法使用 Tidings 的這個部分。",
    contentHasContact: "瓶中信只裝文字，不裝連結或聯絡方式。",
    spamRepeated: "同樣的內容你已經傳送太多次了。請寫點新的內容，或等 {minutes} 分鐘後再試。",
    featureResting: "Tidings 的這個部分目前正在休息，請稍後再來。",
    unavailable: "Tidings 暫時連不上，請 {seconds} 秒後再試一次。",
  },
  forbidden: {
    code: "403",
    title: "你無法開啟這個頁面",
    body: "只有 Tidings 的管理者可以開啟這個頁面。如果你是管理者，請用管理者帳號登入。",
  },
  notFound: {
    code: "404",
    title: "糟糕！找不到頁面",
    body: "你要找的頁面已經漂向大海了。",
    suggestion: "你要找的是 {path} 嗎？",
  },
  home,
  faq,
  privacy,
  terms,
  contact,
  create,
  discover,
  publicBottles,
  randomChat,
  translation,
  report,
  characters,
  pow,
  auth,
  resting,
  moderation,
  myBottles,
} satisfies Translation;

export default zhTW;
