/**
 * Chinese terms, matched as substrings of the text with spaces and punctuation removed (Chinese
 * has no spaces between words). Each term appears in Traditional and Simplified script where the
 * two differ. Only terms that are abusive, sexual or hateful in every ordinary context are here:
 * single characters with innocent uses (幹部, 操作, 干净, 雞肉) and phrases that also read as
 * ordinary speech (我媽的生日, 印度支那) are deliberately left out.
 *
 * @2toad/profanity ships a "zh" list, but it is machine-translated from English and holds
 * everyday words (中国, 爱, 皮肤, 电话, 测试), so it is not used.
 */
export const ZH_TERMS: readonly string[] = [
  // Curses on someone's mother, Mandarin, Taiwanese and Cantonese.
  "幹你娘",
  "干你娘",
  "幹恁娘",
  "干恁娘",
  "操你媽",
  "操你妈",
  "操你娘",
  "肏你媽",
  "肏你妈",
  "草泥馬",
  "草泥马",
  "他媽的",
  "他妈的",
  "去你媽的",
  "去你妈的",
  "滾你媽",
  "滚你妈",
  "你媽逼",
  "你妈逼",
  "屌你老母",
  "屌你",
  "死全家",
  // Vulgar words for genitals or sex, used as insults.
  "肏",
  "屄",
  "傻逼",
  "傻屄",
  "煞筆",
  "煞笔",
  "雞巴",
  "鸡巴",
  "雞掰",
  "鸡掰",
  "機掰",
  "机掰",
  "口交",
  "肛交",
  "約炮",
  "约炮",
  "強姦你",
  "强奸你",
  // Insults for women.
  "婊子",
  "賤人",
  "贱人",
  "賤貨",
  "贱货",
  "騷貨",
  "骚货",
  "蕩婦",
  "荡妇",
  "狗娘養的",
  "狗娘养的",
  "王八蛋",
  // Slurs against peoples and groups.
  "黑鬼",
  "支那豬",
  "支那猪",
  "高麗棒子",
  "高丽棒子",
  "死基佬",
];
