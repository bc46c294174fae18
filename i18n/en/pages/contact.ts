// Strings of the contact page.
export const contact = {
  title: "Contact Us",
  lead: "Questions, ideas, or something that needs our attention? Send us a message. We read every one.",
  formLabel: "Contact form",
  allRequired: "All fields are required.",
  name: "Name",
  namePlaceholder: "Your name",
  email: "Email",
  emailPlaceholder: "you@example.com",
  message: "Message",
  messagePlaceholder: "How can we help?",
  send: "Send Message",
  sending: "Sending…",
  sentTitle: "Message Sent",
  sentBody: "Thank you for your message. We'll get back to you soon!",
  failedTitle: "Your message was not sent",
  alternative: "Or write to us at {email:string}",
};
