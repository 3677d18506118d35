// PLACEHOLDER (detail-view engineer replaces this file): the generic detail page of one object.
import type { KindConfig } from '../../kinds/kindConfig';

export function ResourceDetail({ config, namespace, name }: { config: KindConfig; namespace?: string; name: string; tab?: string }) {
  return (
    <section>
      <h1>
        {config.kind} {namespace ? `${namespace}/` : ''}
        {name}
      </h1>
    </section>
  );
}
