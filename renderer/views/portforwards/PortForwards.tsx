// PLACEHOLDER (terminals engineer replaces this file): the list of port-forwards.
export function PortForwards() {
  return <section><h1>Port forwards</h1></section>;
}
