/** sheetd's name and mark (SVG, drawn here): the /docs pages' top bar and favicon, and the web pages' favicon. */

/** a 3 x 3 grid of cells, the top row filled: the favicon, and the mark beside the name */
const MARK = '<rect x="1" y="1" width="30" height="30" rx="4" fill="#ffffff" stroke="#1f6f50" stroke-width="2"/>'
  + '<rect x="2" y="2" width="28" height="9" rx="3" fill="#1f6f50"/>'
  + '<path d="M11 11v19M21 11v19M2 20.5h28" stroke="#1f6f50" stroke-width="1.5"/>';

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">${MARK}</svg>`;

export const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="40" viewBox="0 0 150 40" role="img" aria-label="sheetd">'
  + `<title>sheetd</title><g transform="translate(2 4)">${MARK}</g>`
  + '<text x="42" y="29" font-family="Helvetica, Arial, sans-serif" font-size="26" font-weight="700" fill="#ffffff">sheetd</text></svg>';
