import type { Translation } from "../../i18n-types";

export const home: Translation["home"] = {
  title: "讓潮水替你傳遞心聲",
  lead: "匿名寫下一段話，讓它隨波漂流，也拾起世界某處陌生人寄出的瓶中信。",
  loading: "正在載入瓶中信…",
  actions: {
    write: "寫一封信",
    find: "尋找瓶子",
  },
  sea: {
    label: "海上漂流的瓶子",
    bottle: "漂流瓶 {number}",
    drifted: "瓶子漂走了。",
    empty: "瓶子都漂走了。寫一封屬於你的信，讓它出航吧。",
    tip: "小提示：點一下漂流中的瓶子，看看裡面裝了什麼訊息！",
    tipTouch: "小提示：輕觸漂流中的瓶子，看看裡面裝了什麼訊息！",
    emptySeaTitle: "海上空空如也",
    emptySeaBody: "還沒有人分享公開的瓶子。寫一封信，讓它出航，等待別人拾起吧。",
  },
  features: {
    title: "每個瓶子都有自己的旅程",
    send: {
      title: "寄出",
      body: "寫下一個念頭、一個願望或一個秘密，不必留下姓名，交給大海帶走。",
    },
    receive: {
      title: "拾獲",
      body: "撿起漂到你岸邊的瓶子，讀一讀遠方陌生人寫下的話。",
    },
    warmth: {
      title: "傳遞溫暖",
      body: "一句溫柔的話可以漂得很遠，為拾到瓶子的人留下一點光。",
    },
  },
  story: {
    about: {
      title: "關於我們",
      body: "Tidings 是網路上一個安靜的角落，陌生人在這裡互相寫信，不需要名字、個人檔案或追蹤人數。跟著瓶子一起出航的，只有它出發地的國名與國旗。",
    },
    howItWorks: {
      title: "運作方式",
      body: "寫下你的訊息，選擇它要漂流多久、什麼時候沉入海底。漂流時間一到，它就會被沖上岸，等待某個人隨機拾起、閱讀，甚至翻譯。",
    },
    mission: {
      title: "我們的使命",
      body: "我們希望讓世界變得小一點、溫柔一點：把一段真誠的話送過大海，交給今天或許正需要它的人。",
    },
  },
  more: {
    title: "繼續探索",
    faq: {
      title: "常見問題",
      body: "瓶子怎麼漂流、誰能讀到你的信，以及瓶子裡適合放些什麼。",
    },
    publicBottles: {
      title: "公開瓶子",
      body: "瀏覽寫信人選擇與所有人分享的瓶中信。",
    },
  },
};
