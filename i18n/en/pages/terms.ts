// Strings of the terms page.
export const terms = {
  title: "Terms of Service",
  lead: "The rules for using Tidings. Please read them before you write or share anything.",
  toc: "On this page",
  sections: {
    acceptance: {
      title: "Acceptance of terms",
      body: "By accessing or using Tidings, you agree to be bound by these Terms of Service and by our Privacy Policy. If you do not agree with any part of them, please do not use the site.",
    },
    useLicence: {
      title: "Use licence",
      body: "We grant you a personal, non-exclusive, non-transferable and revocable licence to use Tidings for your own non-commercial purposes. Under this licence you may not:",
      item1: "copy, modify or redistribute the site's software, design or materials;",
      item2: "use the site or its content for any commercial purpose or public display;",
      item3: "decompile or reverse engineer any software on the site;",
      item4: "collect other visitors' messages by scraping or other automated means;",
      item5: "remove any copyright or other proprietary notices.",
      note: "This licence ends automatically if you break any of these restrictions, and we may end it at any time.",
    },
    contentGuidelines: {
      title: "Content guidelines",
      body: "You are responsible for everything you write and send. Do not post or send content that:",
      item1: "is illegal, or promotes illegal activity;",
      item2: "is abusive, harassing, hateful, threatening or sexually explicit;",
      item3: "infringes anyone's copyright, trademark, privacy or other rights;",
      item4: "is spam, advertising or repeated unsolicited messages;",
      item5: "contains malware, viruses or links to harmful software;",
      item6: "disrupts or interferes with the site, its servers or other visitors.",
    },
    disclaimer: {
      title: "Disclaimer",
      body: 'Tidings is provided "as is" and "as available", without warranties of any kind. Messages are written by visitors. No person reviews them before they are published, though automatic filters screen each message as it is sent, and we do not endorse them.',
      moderation:
        "We may remove any content that breaks these terms or that we consider harmful, at any time and without notice. Visitors who violate these terms may have their use of Tidings limited or blocked.",
    },
    liability: {
      title: "Limitation of liability",
      body: "To the fullest extent permitted by law, Tidings and its operators are not liable for any indirect, incidental, special or consequential damages, or for any loss of data, arising from your use of, or inability to use, the site, or from content posted by other visitors.",
    },
    changes: {
      title: "Changes to these terms",
      body: "We may revise these terms at any time. The current version is always published on this page, and by continuing to use Tidings after a change you agree to the revised terms.",
    },
    governingLaw: {
      title: "Governing law",
      body: "These terms are governed by and construed in accordance with the laws of the United States, and you submit to the jurisdiction of its courts for any dispute arising from them.",
    },
  },
};
