// Standard base64 to and from bytes, for the host's workspace and relay
// methods (which carry binary pieces as base64), the file transfers, the
// screenshots (the agent's and the images the chat bridge attaches) and the
// conversation store. Pure. Where the engine has Uint8Array's own base64
// methods, each way is one native pass.

/** Standard base64 of bytes (in slices without the native method, so large buffers do not overflow the call stack). */
export function bytesToBase64(bytes) {
  if (typeof bytes.toBase64 === 'function') return bytes.toBase64();
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Bytes of standard base64. */
export function base64ToBytes(b64) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(b64);
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
