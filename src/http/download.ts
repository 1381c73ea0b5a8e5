import contentDisposition from 'content-disposition';

/**
 * The Content-Disposition of a file response (RFC 6266): the name itself in `filename*`
 * (UTF-8) whenever it is not plain ASCII, and an ASCII stand-in in `filename` for clients that
 * read only that one. null: no name, the bare type.
 */
export function dispositionOf(fileName: string | null, type: 'attachment' | 'inline' = 'attachment'): string {
  if (fileName === null) return type;
  // the library keeps only a path's last segment, and a sheet named "Q1/Q2" is one name
  // eslint-disable-next-line no-control-regex
  const name = fileName.replace(/[\\/]/g, '_').replace(/[\u0000-\u001f\u007f]/g, '');
  return contentDisposition(name, { type, fallback: name.replace(/[^\x20-\x7e]/g, '_') });
}
