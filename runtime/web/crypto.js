// crypto: getRandomValues, randomUUID and subtle.digest
// (https://w3c.github.io/webcrypto/). A group of coderun's web globals
// (runtime/web.go). Random bytes come from the host's crypto/rand
// (OP_RANDOM); digests are computed here, in the guest, inside the run's
// fuel and memory budgets.
(function (lib) {
  "use strict";
  const host = lib.host, OP_RANDOM = lib.OP_RANDOM, DOMException_ = lib.DOMException;
  const TypeError_ = TypeError, Uint8Array_ = Uint8Array, Promise_ = Promise;
  const isView = ArrayBuffer.isView, ReflectApply = Reflect.apply, parseInt_ = parseInt;
  const abByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
  const taName = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
  const integerArrays = ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
    "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array"];
  const MAX = 65536;

  function fill(bytes) {
    const hex = host(0, 0, 0, undefined, OP_RANDOM, bytes.length);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt_(hex.slice(2 * i, 2 * i + 2), 16);
  }

  class SubtleCrypto {
    constructor(key) {
      if (key !== secret) throw new TypeError_("Illegal constructor");
    }
    digest(algorithm, data) {
      try {
        let name = algorithm;
        if (typeof algorithm === "object" && algorithm !== null) {
          name = algorithm.name;
          if (name === undefined) throw new TypeError_("SubtleCrypto.digest: the algorithm has no name");
        }
        name = String(name).toUpperCase();
        const f = digests[name];
        if (f === undefined) {
          throw new DOMException_('Unrecognized algorithm name: coderun supports "SHA-1", "SHA-256", "SHA-384" and "SHA-512"', "NotSupportedError");
        }
        let bytes;
        if (isView(data)) bytes = new Uint8Array_(data.buffer, data.byteOffset, data.byteLength);
        else {
          try { ReflectApply(abByteLength, data, []); } catch (_) {
            throw new TypeError_('SubtleCrypto.digest: the "data" argument must be an ArrayBuffer, a TypedArray or a DataView');
          }
          bytes = new Uint8Array_(data);
        }
        return Promise_.resolve(f(bytes.slice()).buffer);
      } catch (e) {
        return Promise_.reject(e);
      }
    }
  }
  Object.defineProperty(SubtleCrypto.prototype, Symbol.toStringTag, { value: "SubtleCrypto", configurable: true });
  const secret = {};
  const subtle = new SubtleCrypto(secret);

  class Crypto {
    constructor(key) {
      if (key !== secret) throw new TypeError_("Illegal constructor");
    }
    get subtle() { return subtle; }
    getRandomValues(array) {
      const name = isView(array) ? ReflectApply(taName, array, []) : undefined;
      if (!integerArrays.includes(name)) {
        throw new DOMException_("crypto.getRandomValues: the argument must be an integer-type TypedArray", "TypeMismatchError");
      }
      if (array.byteLength > MAX) {
        throw new DOMException_("crypto.getRandomValues: the ArrayBufferView's byte length (" + array.byteLength +
          ") exceeds the number of bytes of entropy available via this API (" + MAX + ")", "QuotaExceededError");
      }
      fill(new Uint8Array_(array.buffer, array.byteOffset, array.byteLength));
      return array;
    }
    randomUUID() {
      const b = new Uint8Array_(16);
      fill(b);
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      let s = "";
      for (let i = 0; i < 16; i++) {
        if (i === 4 || i === 6 || i === 8 || i === 10) s += "-";
        s += (b[i] < 16 ? "0" : "") + b[i].toString(16);
      }
      return s;
    }
  }
  Object.defineProperty(Crypto.prototype, Symbol.toStringTag, { value: "Crypto", configurable: true });

  // pad returns the message padded as SHA-1 and SHA-2 pad it, with a
  // length field of lenBytes bytes, in blocks of block bytes.
  function pad(m, block, lenBytes) {
    const n = Math.ceil((m.length + 1 + lenBytes) / block) * block;
    const p = new Uint8Array_(n);
    p.set(m);
    p[m.length] = 0x80;
    const bits = m.length * 8;
    const hi = Math.floor(bits / 4294967296), lo = bits >>> 0;
    p[n - 8] = hi >>> 24; p[n - 7] = hi >>> 16; p[n - 6] = hi >>> 8; p[n - 5] = hi;
    p[n - 4] = lo >>> 24; p[n - 3] = lo >>> 16; p[n - 2] = lo >>> 8; p[n - 1] = lo;
    return p;
  }
  function out32(h, words) {
    const r = new Uint8Array_(words * 4);
    for (let i = 0; i < words; i++) {
      r[4 * i] = h[i] >>> 24; r[4 * i + 1] = h[i] >>> 16; r[4 * i + 2] = h[i] >>> 8; r[4 * i + 3] = h[i];
    }
    return r;
  }
  const word = (p, j) => ((p[j] << 24) | (p[j + 1] << 16) | (p[j + 2] << 8) | p[j + 3]) | 0;
  const rotl = (x, n) => (x << n) | (x >>> (32 - n));

  function sha1(m) {
    const p = pad(m, 64, 8), w = new Int32Array(80);
    const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
    for (let off = 0; off < p.length; off += 64) {
      for (let i = 0; i < 16; i++) w[i] = word(p, off + 4 * i);
      for (let i = 16; i < 80; i++) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
      let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
      for (let i = 0; i < 80; i++) {
        let f, k;
        if (i < 20) { f = (b & c) | (~b & d); k = 0x5a827999; }
        else if (i < 40) { f = b ^ c ^ d; k = 0x6ed9eba1; }
        else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8f1bbcdc; }
        else { f = b ^ c ^ d; k = 0xca62c1d6; }
        const t = (rotl(a, 5) + f + e + k + w[i]) | 0;
        e = d; d = c; c = rotl(b, 30); b = a; a = t;
      }
      h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0; h[4] = (h[4] + e) | 0;
    }
    return out32(h, 5);
  }

  const K256 = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ];
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  function sha256(m) {
    const p = pad(m, 64, 8), w = new Int32Array(64);
    const h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    for (let off = 0; off < p.length; off += 64) {
      for (let i = 0; i < 16; i++) w[i] = word(p, off + 4 * i);
      for (let i = 16; i < 64; i++) {
        const x = w[i - 15], y = w[i - 2];
        const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3), s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
      }
      let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
      for (let i = 0; i < 64; i++) {
        const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25), ch = (e & f) ^ (~e & g);
        const t1 = (hh + S1 + ch + K256[i] + w[i]) | 0;
        const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22), maj = (a & b) ^ (a & c) ^ (b & c);
        const t2 = (S0 + maj) | 0;
        hh = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
      h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + hh) | 0;
    }
    return out32(h, 8);
  }

  // SHA-512's 64-bit words are pairs of 32-bit halves: hi at 2i, lo at 2i+1.
  const K512 = [
    0x428a2f98, 0xd728ae22, 0x71374491, 0x23ef65cd, 0xb5c0fbcf, 0xec4d3b2f, 0xe9b5dba5, 0x8189dbbc,
    0x3956c25b, 0xf348b538, 0x59f111f1, 0xb605d019, 0x923f82a4, 0xaf194f9b, 0xab1c5ed5, 0xda6d8118,
    0xd807aa98, 0xa3030242, 0x12835b01, 0x45706fbe, 0x243185be, 0x4ee4b28c, 0x550c7dc3, 0xd5ffb4e2,
    0x72be5d74, 0xf27b896f, 0x80deb1fe, 0x3b1696b1, 0x9bdc06a7, 0x25c71235, 0xc19bf174, 0xcf692694,
    0xe49b69c1, 0x9ef14ad2, 0xefbe4786, 0x384f25e3, 0x0fc19dc6, 0x8b8cd5b5, 0x240ca1cc, 0x77ac9c65,
    0x2de92c6f, 0x592b0275, 0x4a7484aa, 0x6ea6e483, 0x5cb0a9dc, 0xbd41fbd4, 0x76f988da, 0x831153b5,
    0x983e5152, 0xee66dfab, 0xa831c66d, 0x2db43210, 0xb00327c8, 0x98fb213f, 0xbf597fc7, 0xbeef0ee4,
    0xc6e00bf3, 0x3da88fc2, 0xd5a79147, 0x930aa725, 0x06ca6351, 0xe003826f, 0x14292967, 0x0a0e6e70,
    0x27b70a85, 0x46d22ffc, 0x2e1b2138, 0x5c26c926, 0x4d2c6dfc, 0x5ac42aed, 0x53380d13, 0x9d95b3df,
    0x650a7354, 0x8baf63de, 0x766a0abb, 0x3c77b2a8, 0x81c2c92e, 0x47edaee6, 0x92722c85, 0x1482353b,
    0xa2bfe8a1, 0x4cf10364, 0xa81a664b, 0xbc423001, 0xc24b8b70, 0xd0f89791, 0xc76c51a3, 0x0654be30,
    0xd192e819, 0xd6ef5218, 0xd6990624, 0x5565a910, 0xf40e3585, 0x5771202a, 0x106aa070, 0x32bbd1b8,
    0x19a4c116, 0xb8d2d0c8, 0x1e376c08, 0x5141ab53, 0x2748774c, 0xdf8eeb99, 0x34b0bcb5, 0xe19b48a8,
    0x391c0cb3, 0xc5c95a63, 0x4ed8aa4a, 0xe3418acb, 0x5b9cca4f, 0x7763e373, 0x682e6ff3, 0xd6b2b8a3,
    0x748f82ee, 0x5defb2fc, 0x78a5636f, 0x43172f60, 0x84c87814, 0xa1f0ab72, 0x8cc70208, 0x1a6439ec,
    0x90befffa, 0x23631e28, 0xa4506ceb, 0xde82bde9, 0xbef9a3f7, 0xb2c67915, 0xc67178f2, 0xe372532b,
    0xca273ece, 0xea26619c, 0xd186b8c7, 0x21c0c207, 0xeada7dd6, 0xcde0eb1e, 0xf57d4f7f, 0xee6ed178,
    0x06f067aa, 0x72176fba, 0x0a637dc5, 0xa2c898a6, 0x113f9804, 0xbef90dae, 0x1b710b35, 0x131c471b,
    0x28db77f5, 0x23047d84, 0x32caab7b, 0x40c72493, 0x3c9ebe0a, 0x15c9bebc, 0x431d67c4, 0x9c100d4c,
    0x4cc5d4be, 0xcb3e42b6, 0x597f299c, 0xfc657e2a, 0x5fcb6fab, 0x3ad6faec, 0x6c44198c, 0x4a475817,
  ];
  // Sigma functions on a 64-bit word (hi, lo): rotations right by r (< 32)
  // or by r >= 32 (swap halves), and a shift right by s (< 32).
  const rHi = (hi, lo, r) => (r < 32 ? (hi >>> r) | (lo << (32 - r)) : (lo >>> (r - 32)) | (hi << (64 - r)));
  const rLo = (hi, lo, r) => (r < 32 ? (lo >>> r) | (hi << (32 - r)) : (hi >>> (r - 32)) | (lo << (64 - r)));
  function sha512(m, init, outWords) {
    const p = pad(m, 128, 16), w = new Int32Array(160), h = new Int32Array(init);
    for (let off = 0; off < p.length; off += 128) {
      for (let i = 0; i < 32; i++) w[i] = word(p, off + 4 * i);
      for (let i = 16; i < 80; i++) {
        const xh = w[2 * i - 30], xl = w[2 * i - 29], yh = w[2 * i - 4], yl = w[2 * i - 3];
        const s0h = rHi(xh, xl, 1) ^ rHi(xh, xl, 8) ^ (xh >>> 7);
        const s0l = rLo(xh, xl, 1) ^ rLo(xh, xl, 8) ^ ((xl >>> 7) | (xh << 25));
        const s1h = rHi(yh, yl, 19) ^ rHi(yh, yl, 61) ^ (yh >>> 6);
        const s1l = rLo(yh, yl, 19) ^ rLo(yh, yl, 61) ^ ((yl >>> 6) | (yh << 26));
        let lo = (w[2 * i - 31] >>> 0) + (s0l >>> 0) + (w[2 * i - 13] >>> 0) + (s1l >>> 0);
        const hi = w[2 * i - 32] + s0h + w[2 * i - 14] + s1h + Math.floor(lo / 4294967296);
        w[2 * i] = hi | 0;
        w[2 * i + 1] = lo | 0;
      }
      const v = h.slice();
      for (let i = 0; i < 80; i++) {
        const ah = v[0], al = v[1], bh = v[2], bl = v[3], ch = v[4], cl = v[5], dh = v[6], dl = v[7];
        const eh = v[8], el = v[9], fh = v[10], fl = v[11], gh = v[12], gl = v[13], hh = v[14], hl = v[15];
        const S1h = rHi(eh, el, 14) ^ rHi(eh, el, 18) ^ rHi(eh, el, 41);
        const S1l = rLo(eh, el, 14) ^ rLo(eh, el, 18) ^ rLo(eh, el, 41);
        const chh = (eh & fh) ^ (~eh & gh), chl = (el & fl) ^ (~el & gl);
        const t1l = (hl >>> 0) + (S1l >>> 0) + (chl >>> 0) + (K512[2 * i + 1] >>> 0) + (w[2 * i + 1] >>> 0);
        const t1h = hh + S1h + chh + K512[2 * i] + w[2 * i] + Math.floor(t1l / 4294967296);
        const S0h = rHi(ah, al, 28) ^ rHi(ah, al, 34) ^ rHi(ah, al, 39);
        const S0l = rLo(ah, al, 28) ^ rLo(ah, al, 34) ^ rLo(ah, al, 39);
        const mh = (ah & bh) ^ (ah & ch) ^ (bh & ch), ml = (al & bl) ^ (al & cl) ^ (bl & cl);
        const t2l = (S0l >>> 0) + (ml >>> 0), t2h = S0h + mh + Math.floor(t2l / 4294967296);
        v[14] = gh; v[15] = gl; v[12] = fh; v[13] = fl; v[10] = eh; v[11] = el;
        const el2 = (dl >>> 0) + ((t1l | 0) >>> 0);
        v[8] = (dh + (t1h | 0) + Math.floor(el2 / 4294967296)) | 0; v[9] = el2 | 0;
        v[6] = ch; v[7] = cl; v[4] = bh; v[5] = bl; v[2] = ah; v[3] = al;
        const al2 = ((t1l | 0) >>> 0) + ((t2l | 0) >>> 0);
        v[0] = ((t1h | 0) + (t2h | 0) + Math.floor(al2 / 4294967296)) | 0; v[1] = al2 | 0;
      }
      for (let i = 0; i < 16; i += 2) {
        const lo = (h[i + 1] >>> 0) + (v[i + 1] >>> 0);
        h[i] = (h[i] + v[i] + Math.floor(lo / 4294967296)) | 0;
        h[i + 1] = lo | 0;
      }
    }
    return out32(h, outWords);
  }
  const H512 = [0x6a09e667, 0xf3bcc908, 0xbb67ae85, 0x84caa73b, 0x3c6ef372, 0xfe94f82b, 0xa54ff53a, 0x5f1d36f1,
    0x510e527f, 0xade682d1, 0x9b05688c, 0x2b3e6c1f, 0x1f83d9ab, 0xfb41bd6b, 0x5be0cd19, 0x137e2179];
  const H384 = [0xcbbb9d5d, 0xc1059ed8, 0x629a292a, 0x367cd507, 0x9159015a, 0x3070dd17, 0x152fecd8, 0xf70e5939,
    0x67332667, 0xffc00b31, 0x8eb44a87, 0x68581511, 0xdb0c2e0d, 0x64f98fa7, 0x47b5481d, 0xbefa4fa4];
  const digests = {
    __proto__: null,
    "SHA-1": sha1,
    "SHA-256": sha256,
    "SHA-384": (m) => sha512(m, H384, 12),
    "SHA-512": (m) => sha512(m, H512, 16),
  };

  return { __proto__: null, crypto: new Crypto(secret) };
})
