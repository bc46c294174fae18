import type { Translation } from "../../i18n-types";

export const resting: Translation["resting"] = {
  notYou: "不是你這邊出了問題：Tidings 的管理者暫時停用了這個部分。潮水總會回來的。",
  draftKept: "我們保留了你正在寫的訊息。瓶子功能恢復後，它會在「寫信」頁面等你。",
  chat: {
    title: "隨機聊天正在休息",
    body: "和陌生人聊天的功能暫時停用，請稍後再來。",
    elsewhere: "寫一封信",
  },
  bottles: {
    title: "大海正在休息",
    body: "寫信和尋找瓶子的功能暫時停用，請稍後再來。",
    elsewhere: "隨機聊天",
  },
  publicBottles: {
    title: "公開瓶子正在休息",
    body: "公開瓶子暫時收起來了，請稍後再來。",
    elsewhere: "尋找瓶子",
  },
};
