// Generated from integrity/events.py by scripts/stream_events.py: do not edit.

export const INTEGRITY_ALERT = "integrity.alert";
export const INTEGRITY_ACKNOWLEDGED = "integrity.acknowledged";

export const SUPERVISOR_EVENTS = Object.freeze([INTEGRITY_ALERT, INTEGRITY_ACKNOWLEDGED]);
