// The big road of a table's results, as live casinos draw it: one column per streak of the same
// winning side, a new column when the side changes; a streak longer than the road is deep turns
// right along its last free row (the "dragon tail"). Pure layout: the results, their winners and
// which rounds count are the server's (GET /api/tables/{id}/stats/ leaves voided rounds out); a
// result without a winner (a voided or unfinished round) is skipped here too.

export const ROAD_ROWS = 6;

/** The streaks of results (oldest first): [{side, count, rounds: [result, ...]}], oldest first. */
export function streaks(results) {
  const out = [];
  for (const r of results || []) {
    if (r.winner !== "andar" && r.winner !== "bahar") continue;
    const last = out[out.length - 1];
    if (last && last.side === r.winner) {
      last.count += 1;
      last.rounds.push(r);
    } else {
      out.push({ side: r.winner, count: 1, rounds: [r] });
    }
  }
  return out;
}

/** The road's cells: each result at its {col, row} (0-based, row 0 at the top), with its streak's
 *  index; `columns` is the width drawn (at least `least`). A streak starts at the top of the column
 *  after the one the previous streak started in, goes down, and turns right for good when the next
 *  place down is the bottom or taken (by an earlier streak's tail). */
export function bigRoad(results, { rows = ROAD_ROWS, least = 0 } = {}) {
  const taken = new Set();
  const key = (col, row) => `${col},${row}`;
  const cells = [];
  let start = -1;
  streaks(results).forEach((streak, index) => {
    start += 1;
    while (taken.has(key(start, 0))) start += 1;  // only a tail along the top row could be there
    let col = start, row = 0, turned = false;
    streak.rounds.forEach((result, i) => {
      if (i > 0) {
        if (!turned && row + 1 < rows && !taken.has(key(col, row + 1))) row += 1;
        else {
          turned = true;
          col += 1;
          while (taken.has(key(col, row))) col += 1;
        }
      }
      taken.add(key(col, row));
      cells.push({ col, row, side: streak.side, streak: index, result });
    });
  });
  const columns = Math.max(least, ...cells.map((c) => c.col + 1), 0);
  return { cells, columns, rows };
}
