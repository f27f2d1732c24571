// The visible "simulated" mark: a hazard-striped diagonal band across the top
// left corner and the letters SIM drawn from rectangles, so no system font is
// needed (a fresh machine may have none).

const GLYPHS: Readonly<Record<string, readonly string[]>> = {
  S: ['###', '#..', '###', '..#', '###'],
  I: ['###', '.#.', '.#.', '.#.', '###'],
  M: ['#...#', '##.##', '#.#.#', '#...#', '#...#'],
};

const GLYPH_ROWS = 5;

/** One SVG path of unit cells for `text`, `cell` px per cell, top-left at (x, y). */
function lettersPath(text: string, x: number, y: number, cell: number): { d: string; width: number } {
  let d = '';
  let cursor = x;
  for (const letter of text) {
    const rows = GLYPHS[letter];
    rows.forEach((row, rowIndex) => {
      for (let column = 0; column < row.length; column += 1) {
        if (row[column] === '#') d += `M${cursor + column * cell} ${y + rowIndex * cell}h${cell}v${cell}h${-cell}z`;
      }
    });
    cursor += (rows[0].length + 1) * cell;
  }
  return { d, width: cursor - x - cell };
}

const fmt = (value: number) => Math.round(value * 10) / 10;

/** SVG markup for the band and the SIM letters on a `width`×`height` canvas. */
export function simMarkSvg(width: number, height: number): string {
  const short = Math.min(width, height);
  const inner = short * 0.2;
  const outer = short * 0.36;
  const stripe = Math.max(4, short * 0.035);
  const band = `M0 ${fmt(inner)}L${fmt(inner)} 0L${fmt(outer)} 0L0 ${fmt(outer)}Z`;
  const cell = Math.max(2, Math.round(short * 0.018));
  const letters = lettersPath('SIM', 0, 0, cell);
  const plateWidth = letters.width + cell * 2;
  const plateHeight = GLYPH_ROWS * cell + cell * 2;
  const plateX = width - plateWidth - cell * 2;
  const plateY = height - plateHeight - cell * 2;
  return (
    `<defs><pattern id="simStripes" width="${fmt(stripe * 2)}" height="${fmt(stripe * 2)}" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">` +
    `<rect width="${fmt(stripe * 2)}" height="${fmt(stripe * 2)}" fill="#141414"/><rect width="${fmt(stripe)}" height="${fmt(stripe * 2)}" fill="#f5c400"/></pattern></defs>` +
    `<path d="${band}" fill="url(#simStripes)" fill-opacity="0.9"/>` +
    `<rect x="${plateX}" y="${plateY}" width="${plateWidth}" height="${plateHeight}" rx="${cell}" fill="#000" fill-opacity="0.6"/>` +
    `<path transform="translate(${plateX + cell} ${plateY + cell})" d="${letters.d}" fill="#fff"/>`
  );
}
