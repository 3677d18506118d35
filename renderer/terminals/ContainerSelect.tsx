// The container picker in a dock tab's toolbar (logs, shell), as `kubectl logs|exec -c`; shown
// only when the pod has more than one container to pick from.
export function ContainerSelect({ names, value, onChange, testId }: { names: readonly string[]; value: string | undefined; onChange(name: string): void; testId: string }) {
  if (names.length <= 1) return null;
  return (
    <select value={value ?? ''} onChange={(event) => onChange(event.target.value)} aria-label="Container" data-testid={testId}>
      {names.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      ))}
    </select>
  );
}
