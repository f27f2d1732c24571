/** The ratio of `ratios` (`w:h`) nearest to width/height, compared by the log of the quotient (2:1 and 1:2 are as far from 1:1). */
export function nearestRatio<R extends string>(width: number, height: number, ratios: readonly R[]): R {
  let best = ratios[0];
  let distance = Infinity;
  for (const ratio of ratios) {
    const [w, h] = ratio.split(':').map(Number);
    const gap = Math.abs(Math.log(width / height) - Math.log(w / h));
    if (gap < distance) [best, distance] = [ratio, gap];
  }
  return best;
}
