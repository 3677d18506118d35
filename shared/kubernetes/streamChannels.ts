// The channel numbers and subprotocol names of the Kubernetes WebSocket stream protocol (exec,
// attach, port-forward), shared by the API server that serves it and the web UI's terminal that
// speaks it. Follows apimachinery util/httpstream/wsstream and client-go's remotecommand: every
// binary frame starts with a channel byte; v5.channel.k8s.io adds channel 255, "close stream N".

export const StreamChannel = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  /** the final metav1.Status (v4+) or a plain error text (older versions) */
  error: 3,
  /** terminal size as client-go's TerminalSize JSON */
  resize: 4,
  /** v5 only: the next byte names a stream the sender has finished writing */
  close: 255,
} as const;

/** The newest protocol: v4 framing plus the close channel (kubectl 1.30+ offers it first). */
export const CHANNEL_PROTOCOL_V5 = 'v5.channel.k8s.io';
/** Binary frames, a JSON Status on the error channel. */
export const CHANNEL_PROTOCOL_V4 = 'v4.channel.k8s.io';
