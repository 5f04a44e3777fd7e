// TextEncoder and TextDecoder (https://encoding.spec.whatwg.org/), UTF-8 only.
// A group of coderun's web globals (runtime/web.go): evaluated on first use,
// it yields a factory of the group's globals.
(function (lib) {
  "use strict";
  const TypeError_ = TypeError, RangeError_ = RangeError, Uint8Array_ = Uint8Array, String_ = String;
  const fromCharCode = String.fromCharCode, ReflectApply = Reflect.apply;
  const isView = ArrayBuffer.isView;
  const abByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
  const CHUNK = 8192;

  // utf8Length and writeUTF8 encode a string, lone surrogates as U+FFFD.
  function codePointAt(s, i) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) return c;
    if (c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) return 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
    }
    return 0xfffd;
  }
  const utf8Size = (cp) => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
  function put(out, j, cp) {
    if (cp < 0x80) { out[j] = cp; return 1; }
    if (cp < 0x800) { out[j] = 0xc0 | (cp >> 6); out[j + 1] = 0x80 | (cp & 63); return 2; }
    if (cp < 0x10000) {
      out[j] = 0xe0 | (cp >> 12); out[j + 1] = 0x80 | ((cp >> 6) & 63); out[j + 2] = 0x80 | (cp & 63);
      return 3;
    }
    out[j] = 0xf0 | (cp >> 18); out[j + 1] = 0x80 | ((cp >> 12) & 63);
    out[j + 2] = 0x80 | ((cp >> 6) & 63); out[j + 3] = 0x80 | (cp & 63);
    return 4;
  }

  class TextEncoder {
    get encoding() { return "utf-8"; }
    encode(input = "") {
      const s = String_(input);
      let n = 0;
      for (let i = 0; i < s.length; i++) {
        const cp = codePointAt(s, i);
        n += utf8Size(cp);
        if (cp > 0xffff) i++;
      }
      const out = new Uint8Array_(n);
      for (let i = 0, j = 0; i < s.length; i++) {
        const cp = codePointAt(s, i);
        j += put(out, j, cp);
        if (cp > 0xffff) i++;
      }
      return out;
    }
    encodeInto(source, destination) {
      if (!(destination instanceof Uint8Array_)) {
        throw new TypeError_("TextEncoder.encodeInto: the destination must be a Uint8Array");
      }
      const s = String_(source);
      let read = 0, written = 0;
      const room = destination.length;
      for (let i = 0; i < s.length; i++) {
        const cp = codePointAt(s, i);
        const size = utf8Size(cp);
        if (written + size > room) break;
        written += put(destination, written, cp);
        const units = cp > 0xffff ? 2 : 1;
        read += units;
        i += units - 1;
      }
      return { read, written };
    }
  }
  Object.defineProperty(TextEncoder.prototype, Symbol.toStringTag, { value: "TextEncoder", configurable: true });

  // The labels of UTF-8 (https://encoding.spec.whatwg.org/#names-and-labels).
  const labels = ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"];
  function bytesOf(input) {
    if (input === undefined) return new Uint8Array_(0);
    if (isView(input)) return new Uint8Array_(input.buffer, input.byteOffset, input.byteLength);
    try {
      ReflectApply(abByteLength, input, []);
    } catch (_) {
      throw new TypeError_('TextDecoder.decode: the "input" argument must be an ArrayBuffer, a TypedArray or a DataView');
    }
    return new Uint8Array_(input);
  }

  class TextDecoder {
    #fatal; #ignoreBOM; #streaming = false; #bomSeen = false;
    #needed = 0; #seen = 0; #cp = 0; #lower = 0x80; #upper = 0xbf;
    constructor(label = "utf-8", options = undefined) {
      const l = String_(label).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "").toLowerCase();
      if (!labels.includes(l)) {
        throw new RangeError_('TextDecoder: the encoding "' + String_(label) +
          '" is not supported: coderun supports only "utf-8" (labels: ' + labels.join(", ") + ")");
      }
      const o = options === undefined || options === null ? {} : options;
      if (typeof o !== "object" && typeof o !== "function") {
        throw new TypeError_('TextDecoder: the "options" argument must be an object');
      }
      this.#fatal = !!o.fatal;
      this.#ignoreBOM = !!o.ignoreBOM;
    }
    get encoding() { return "utf-8"; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input = undefined, options = undefined) {
      const bytes = bytesOf(input);
      if (!this.#streaming) this.#reset();
      this.#streaming = options !== undefined && options !== null && !!options.stream;
      const units = [];
      let out = "";
      const emit = (cp) => {
        if (!this.#bomSeen) {
          this.#bomSeen = true;
          if (cp === 0xfeff && !this.#ignoreBOM) return;
        }
        if (cp > 0xffff) {
          cp -= 0x10000;
          units.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
        } else {
          units.push(cp);
        }
        if (units.length >= CHUNK) {
          out += ReflectApply(fromCharCode, null, units);
          units.length = 0;
        }
      };
      const error = () => {
        if (this.#fatal) {
          this.#reset();
          this.#streaming = false;
          throw new TypeError_("TextDecoder.decode: the encoded data was not valid utf-8");
        }
        emit(0xfffd);
      };
      for (let i = 0; i < bytes.length; i++) {
        const b = bytes[i];
        if (this.#needed === 0) {
          if (b <= 0x7f) emit(b);
          else if (b >= 0xc2 && b <= 0xdf) { this.#needed = 1; this.#cp = b & 0x1f; }
          else if (b >= 0xe0 && b <= 0xef) {
            if (b === 0xe0) this.#lower = 0xa0;
            if (b === 0xed) this.#upper = 0x9f;
            this.#needed = 2; this.#cp = b & 0xf;
          } else if (b >= 0xf0 && b <= 0xf4) {
            if (b === 0xf0) this.#lower = 0x90;
            if (b === 0xf4) this.#upper = 0x8f;
            this.#needed = 3; this.#cp = b & 7;
          } else error();
          continue;
        }
        if (b < this.#lower || b > this.#upper) {
          this.#needed = this.#seen = this.#cp = 0;
          this.#lower = 0x80; this.#upper = 0xbf;
          error();
          i--; // the byte starts anew
          continue;
        }
        this.#lower = 0x80; this.#upper = 0xbf;
        this.#cp = (this.#cp << 6) | (b & 0x3f);
        if (++this.#seen === this.#needed) {
          const cp = this.#cp;
          this.#needed = this.#seen = this.#cp = 0;
          emit(cp);
        }
      }
      if (!this.#streaming && this.#needed !== 0) {
        this.#needed = this.#seen = this.#cp = 0;
        this.#lower = 0x80; this.#upper = 0xbf;
        error();
      }
      return out + ReflectApply(fromCharCode, null, units);
    }
    #reset() {
      this.#needed = this.#seen = this.#cp = 0;
      this.#lower = 0x80; this.#upper = 0xbf;
      this.#bomSeen = false;
    }
  }
  Object.defineProperty(TextDecoder.prototype, Symbol.toStringTag, { value: "TextDecoder", configurable: true });

  return { __proto__: null, TextEncoder, TextDecoder };
})
