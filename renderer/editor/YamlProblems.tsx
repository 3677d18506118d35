// The banner above a YAML editor listing why the text does not parse, one `line N: message` each,
// the same problems the editor marks in its gutter.
import type { YamlProblem } from './yamlModel';

export function YamlProblems({ problems, testId }: { problems: readonly YamlProblem[]; testId: string }) {
  if (problems.length === 0) return null;
  return (
    <div className="banner error" data-testid={testId}>
      {problems.map((problem, index) => (
        <div key={index}>
          line {problem.line}: {problem.message}
        </div>
      ))}
    </div>
  );
}
