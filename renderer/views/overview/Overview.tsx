// PLACEHOLDER (overview engineer replaces this file): the cluster overview.
export function Overview() {
  return <section><h1>Overview</h1></section>;
}
