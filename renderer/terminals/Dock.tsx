// PLACEHOLDER (terminals engineer replaces this file): the bottom dock with shell and log tabs.
export function Dock() {
  return null;
}
