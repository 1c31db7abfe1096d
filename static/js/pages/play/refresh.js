// One reload at a time: a call while a load runs asks for one more load after it (a burst of events,
// round.finished then round.settled, costs two requests at most, and the last answer is the newest).

export function refresher(load) {
  let running = null;
  let again = false;
  return function refresh() {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await load();
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  };
}
