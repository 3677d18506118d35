// PLACEHOLDER (detail-view engineer replaces this file): create objects from YAML.
export function CreateFromYaml() {
  return <section><h1>Create from YAML</h1></section>;
}
