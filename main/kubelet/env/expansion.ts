// `$(VAR)` references in env values, command, args and subPathExpr, with the rules of upstream
// third_party/forked/golang/expansion (expand.go): `$(NAME)` is replaced through a mapping, `$$` is
// an escaped `$`, an unterminated `$(` and a `$` followed by anything else are kept as written.

/** Looks each name up in the maps in turn; a name found nowhere stays as the literal `$(NAME)`. */
export function mappingFuncFor(...contexts: ReadonlyMap<string, string>[]): (name: string) => string {
  return (name) => {
    for (const context of contexts) {
      const value = context.get(name);
      if (value !== undefined) return value;
    }
    return `$(${name})`;
  };
}

export function expand(input: string, mapping: (name: string) => string): string {
  let output = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    output += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === '$') {
      output += '$';
    } else if (next === '(') {
      const closer = input.indexOf(')', cursor + 2);
      if (closer >= 0) {
        output += mapping(input.slice(cursor + 2, closer));
        advance = closer - cursor;
      } else {
        output += '$(';
      }
    } else {
      output += `$${next}`;
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return output + input.slice(checkpoint);
}

/** "KEY=value" entries as a map; the last entry for a name wins. */
export function environmentMap(env: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of env) {
    const equals = entry.indexOf('=');
    if (equals < 0) map.set(entry, '');
    else map.set(entry.slice(0, equals), entry.slice(equals + 1));
  }
  return map;
}

/**
 * The container's command and args with `$(VAR)` replaced from its resolved environment, as upstream
 * kubecontainer.ExpandContainerCommandAndArgs does before the container is created.
 */
export function expandContainerCommandAndArgs(container: { command?: string[]; args?: string[] }, env: readonly string[]): { command?: string[]; args?: string[] } {
  const mapping = mappingFuncFor(environmentMap(env));
  return {
    command: container.command?.map((part) => expand(part, mapping)),
    args: container.args?.map((part) => expand(part, mapping)),
  };
}

/**
 * A volume mount's subPathExpr expanded from the container's environment; upstream
 * (ExpandContainerVolumeMounts) refuses names that are missing or empty.
 */
export function expandSubPathExpr(subPathExpr: string, env: readonly string[]): string {
  const values = environmentMap(env);
  const missing = new Set<string>();
  const expanded = expand(subPathExpr, (name) => {
    const value = values.get(name);
    if (!value) missing.add(name);
    return value ?? '';
  });
  if (missing.size > 0) throw new Error(`missing value for ${[...missing].sort().join(', ')}`);
  return expanded;
}
