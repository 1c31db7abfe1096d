// A short tone for a refusal: the dealer watches the cards, not the screen. Web Audio needs a user
// gesture before it may sound, so the context is made (or resumed) on the dealer's first key or
// click. Each beep is counted on an element (data-beeps), which is what a headless test can see.

let context = null;

/** Call from a keydown or pointerdown handler: makes the audio context while a gesture is active. */
export function unlockAudio() {
  const Context = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!Context) return;
  try {
    if (!context) context = new Context();
    if (context.state === "suspended") context.resume().catch(() => {});
  } catch {
    context = null;  // no audio output here: the beep stays a count
  }
}

/** Two falling square-wave notes, a quarter of a second in all. */
export function beep(counter) {
  if (counter) counter.dataset.beeps = String(Number(counter.dataset.beeps || 0) + 1);
  if (!context || context.state !== "running") return;
  const t = context.currentTime;
  const tone = context.createOscillator();
  const gain = context.createGain();
  tone.type = "square";
  tone.frequency.setValueAtTime(880, t);
  tone.frequency.setValueAtTime(520, t + 0.11);
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(0.2, t + 0.01);
  gain.gain.setValueAtTime(0.2, t + 0.2);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.24);
  tone.connect(gain).connect(context.destination);
  tone.start(t);
  tone.stop(t + 0.25);
}
