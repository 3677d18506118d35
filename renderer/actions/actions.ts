// PLACEHOLDER (detail-view engineer fills this in): the actions on an object (scale, restart,
// rollback, delete, cordon/uncordon/drain, suspend/resume, trigger job, shell, logs), used by the
// detail page and the command palette.
import type { KubeObject } from '../../shared/kubernetes/types';
import type { AppServices } from '../context';
import type { KindConfig } from '../kinds/kindConfig';

export interface ActionContext extends AppServices {
  /** asks the user (native dialog in the desktop app, a modal in the browser) */
  confirm(message: string, detail?: string): Promise<boolean>;
  /** asks for a value (e.g. the replica count); undefined = cancelled */
  prompt(message: string, initial: string): Promise<string | undefined>;
}

export interface Action {
  id: string;
  title: string;
  danger?: boolean;
  run(context: ActionContext): Promise<void>;
}

export function actionsFor(_config: KindConfig, _object: KubeObject): Action[] {
  return [];
}
