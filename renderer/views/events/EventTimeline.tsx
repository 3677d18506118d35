// The Events list's timeline view: a lane per object (linked to it), each event a dot or — when it
// repeated — a bar from its first to its last occurrence, Warnings in the warning colour, over a
// window ending now (it moves with the clock), fitted to the oldest event unless one is chosen. Lanes are virtualised like list rows.
import { useMemo, useRef, useState, useLayoutEffect } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { useKinds, useNow } from '../../context';
import { kindOf } from '../../kinds';
import { formatRoute } from '../../store/routes';
import { visibleRange } from '../listModel';
import { eventTimeline, fitWindow, markPlacement, type TimelineLane } from './timelineModel';

const LANE_HEIGHT = 26;
const WINDOWS = [
  { label: 'fit to the events', ms: 0 },
  { label: 'last 15 minutes', ms: 15 * 60_000 },
  { label: 'last hour', ms: 60 * 60_000 },
  { label: 'last 6 hours', ms: 6 * 60 * 60_000 },
  { label: 'last 24 hours', ms: 24 * 60 * 60_000 },
];

export function EventTimeline({ objects }: { objects: KubeObject[] }) {
  const now = useNow(5000);
  const kinds = useKinds();
  // 0 = fit the window to the oldest event shown
  const [windowMs, setWindowMs] = useState(0);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(500);
  const bodyRef = useRef<HTMLDivElement>(null);
  const timeline = useMemo(() => eventTimeline(objects, now.getTime(), windowMs || fitWindow(objects, now.getTime())), [objects, now, windowMs]);
  useLayoutEffect(() => {
    const element = bodyRef.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const { start, end } = visibleRange(scrollTop, height, LANE_HEIGHT, timeline.lanes.length);

  const laneHref = (lane: TimelineLane): string | undefined => {
    const config = kindOf(kinds, lane.apiVersion || 'v1', lane.kind);
    return config ? formatRoute({ view: 'detail', kindKey: config.key, namespace: config.namespaced ? lane.namespace : undefined, name: lane.name }) : undefined;
  };

  return (
    <div className="timeline" data-testid="events-timeline">
      <div className="timeline-toolbar">
        <label>
          Window{' '}
          <select value={windowMs} onChange={(event) => setWindowMs(Number(event.target.value))} data-testid="timeline-window">
            {WINDOWS.map((option) => (
              <option key={option.ms} value={option.ms}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <span className="hint">
          {timeline.lanes.length} object{timeline.lanes.length === 1 ? '' : 's'} with events · a bar runs from an event’s first to its last occurrence
        </span>
        <span className="timeline-legend">
          <span className="timeline-mark normal" aria-hidden="true" /> Normal <span className="timeline-mark warning" aria-hidden="true" /> Warning
        </span>
      </div>
      <div className="timeline-axis" aria-hidden="true">
        <div className="timeline-label" />
        <div className="timeline-track">
          {timeline.ticks.map((tick) => (
            <span key={tick.at} className="timeline-tick" style={{ left: `${((tick.at - timeline.from) / (timeline.to - timeline.from)) * 100}%` }}>
              {tick.label}
            </span>
          ))}
        </div>
      </div>
      <div className="timeline-body" ref={bodyRef} onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}>
        {timeline.lanes.length === 0 ? (
          <div className="empty">No events in this window.</div>
        ) : (
          <ul className="timeline-lanes" style={{ height: timeline.lanes.length * LANE_HEIGHT }} aria-label="Objects with events">
            {timeline.lanes.slice(start, end).map((lane, offset) => {
              const href = laneHref(lane);
              const label = `${lane.kind.toLowerCase()}/${lane.name}`;
              return (
                <li key={lane.key} className="timeline-lane" style={{ top: (start + offset) * LANE_HEIGHT }} data-testid="timeline-lane" data-object={label}>
                  <div className="timeline-label" title={lane.namespace ? `${lane.namespace}/${label}` : label}>
                    {href ? <a href={href}>{label}</a> : label}
                    {lane.warnings > 0 && <span className="tone-warn"> ⚠ {lane.warnings}</span>}
                  </div>
                  <div className="timeline-track">
                    {lane.marks.map((mark) => {
                      const place = markPlacement(mark, timeline);
                      const title = `${mark.type} ${mark.reason}${mark.count > 1 ? ` ×${mark.count}` : ''}: ${mark.message}\n${new Date(mark.start).toLocaleTimeString()} – ${new Date(mark.end).toLocaleTimeString()}`;
                      return (
                        <span
                          key={mark.key}
                          className={`timeline-mark ${mark.type === 'Warning' ? 'warning' : 'normal'}${place.width > 0 ? ' bar' : ''}`}
                          style={{ left: `${place.left * 100}%`, width: place.width > 0 ? `${place.width * 100}%` : undefined }}
                          title={title}
                          role="img"
                          aria-label={title}
                          data-testid="timeline-mark"
                          data-reason={mark.reason}
                        />
                      );
                    })}
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </div>
  );
}
