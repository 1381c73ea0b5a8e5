import contentDisposition from 'content-disposition';

/**
 * The Content-Disposition of a file response (RFC 6266): an ASCII stand-in in `filename` and
 * the name itself in `filename*` (UTF-8). null: no name, the bare type.
 */
export function dispositionOf(fileName: string | null, type: 'attachment' | 'inline' = 'attachment'): string {
  if (fileName === null) return type;
  // the library keeps only a path's last segment, and a sheet named "Q1/Q2" is one name
  // eslint-disable-next-line no-control-regex
  const name = fileName.replace(/[\\/]/g, '_').replace(/[\u0000-\u001f\u007f]/g, '');
  // the ASCII stand-in has no quote either: escaped in a quoted string (\"), it reached the Python
  // SDK's file names with its backslashes (the SDK takes what lies between the quotes as it is)
  const header = contentDisposition(name, { type, fallback: name.replace(/[^\x20-\x7e]|"/g, '_') });
  // The library sends filename* only when `filename` cannot carry the name; it is sent always
  // because the Python SDK reads the name with /filename="(.+)";/, which needs a parameter after it.
  if (header.includes('filename*=')) return header;
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${header}; filename*=UTF-8''${encoded}`;
}
