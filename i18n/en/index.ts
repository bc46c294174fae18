import type { BaseTranslation } from "../i18n-types";
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

const en = {
  meta: {
    description:
      "Write an anonymous message, set it adrift, and find one from a stranger somewhere in the world.",
    titles: {
      home: "Tidings · Messages in bottles",
      create: "Write a message · Tidings",
      discover: "Find a bottle · Tidings",
      about: "About · Tidings",
      privacy: "Privacy Policy · Tidings",
      terms: "Terms of Service · Tidings",
      contact: "Contact · Tidings",
      faq: "FAQ · Tidings",
      publicBottles: "Public Bottles · Tidings",
      randomChat: "Random Chat · Tidings",
      myBottles: "My bottles · Tidings",
      auth: "Sign in · Tidings",
      notFound: "Page not found · Tidings",
      moderation: "Moderation · Tidings",
      forbidden: "Not for you · Tidings",
    },
  },
  nav: {
    home: "Home",
    create: "Create",
    discover: "Discover",
    randomChat: "Random Chat",
    myBottles: "My bottles",
    about: "About",
    faq: "FAQ",
    menu: "Menu",
    main: "Main",
    languageCurrent: "Language: {language:string}",
    skipToContent: "Skip to content",
    signIn: "Sign in",
  },
  languages: {
    en: "English",
    zhTW: "繁體中文",
  },
  footer: {
    tagline: "Anonymous messages, carried by the tide.",
    pages: "Pages",
    about: "About",
    privacy: "Privacy",
    terms: "Terms",
    contact: "Contact",
    faq: "FAQ",
    rights: "© {year:number} Tidings. All rights reserved.",
    website: "Website",
    email: "Email",
  },
  common: {
    loading: "Loading…",
    returnHome: "Return to Home",
    goBack: "Go Back",
    close: "Close",
    cancel: "Cancel",
    notifications: "Notifications (Alt+T)",
    closeNotification: "Close notification",
    tryAgain: "Try again",
    offline: "You are offline. Waiting for your connection to come back…",
    noScript:
      "Tidings needs JavaScript to run. Turn it on in your browser's settings, then reload this page.",
    cookies: {
      title: "Your browser is blocking this site's cookies",
      create:
        "Throwing a bottle needs them: the site keeps your answer to the age question, and your bottles in My bottles, by a cookie. Allow cookies for this site, then throw it; what you write stays on this page.",
      account:
        "Signing in needs them: a cookie is what keeps you signed in. Allow cookies for this site, then sign in or create your account.",
      accountRefused:
        "Your browser is blocking this site's cookies, and signing in needs them. Allow cookies for this site, then try again.",
      myBottles:
        "The site knows the bottles you threw by a cookie, so none can be shown here. Allow cookies for this site, then reload this page.",
      chat: "A chat needs them: the site knows you from one message to the next by a cookie. Allow cookies for this site, then reload this page.",
    },
    reload: "Reload",
    pageFailed: {
      title: "This page could not be shown",
      body: "Something went wrong while loading it. Reloading the page usually helps.",
    },
  },
  errors: {
    required: "Please fill in this field.",
    tooLong: "Please use no more than {limit:number} characters.",
    tooShort: "Please use at least {limit:number} characters.",
    invalidEmail: "Please enter a valid email address, like name@example.com.",
    invalid: "Please check this field.",
    rateLimited: "Too many requests. Please try again in {seconds:number} seconds.",
    tooLarge: "That is too long to send.",
    network: "Could not reach Tidings. Check your connection and try again.",
    generic: "Something went wrong. Please try again later.",
    usernameFormat: "Use only letters, digits, _ - and .",
    usernameTaken: "That username is taken. Please choose another one.",
    passwordIsUsername: "Your password cannot be your username.",
    passwordsMismatch: "The passwords do not match.",
    invalidCredentials: "Wrong username or password.",
    wrongPassword: "That password is not correct.",
    rateLimitedMinutes: "Too many attempts. Try again in {minutes:number} minute{{s}}.",
    unauthorized: "Please sign in first.",
    forbidden: "This is only for the people who run Tidings.",
    ageConfirmationRequired: "Please answer the age question first.",
    ageRefused: "Sorry, this part of Tidings is not open to you at your age.",
    contentHasContact: "Bottles carry words, not links or contact details.",
    spamRepeated:
      "You have sent these same words too many times. Please write something new, or wait {minutes:number} minute{{s}}.",
    featureResting: "This part of Tidings is resting for now. Please come back later.",
    unavailable: "Tidings is briefly out of reach. Please try again in {seconds:number} seconds.",
  },
  forbidden: {
    code: "403",
    title: "This page is not for you",
    body: "Only the people who run Tidings can open it. If that is you, sign in with your operator account.",
  },
  notFound: {
    code: "404",
    title: "Oops! Page not found",
    body: "The page you are looking for has drifted out to sea.",
    suggestion: "Were you looking for {path}?",
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
} satisfies BaseTranslation;

export default en;
