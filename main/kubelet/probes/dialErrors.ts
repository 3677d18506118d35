// Go's wording of durations and host:port addresses for probe output, which reaches users verbatim in
// `Unhealthy` events (upstream's kubelet is a Go program). Dial errors are in shared/net/dialErrors.
import { formatGoDuration } from '../../../shared/kubernetes/duration';

export { joinHostPort } from '../../../shared/net/hostPort';

/** Go's time.Duration String() of a number of seconds: 1s, 1m30s, 1h0m0s. */
export function goDuration(seconds: number): string {
  return formatGoDuration(seconds * 1e9);
}
