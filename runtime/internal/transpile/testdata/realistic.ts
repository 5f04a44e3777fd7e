interface Point { x: number; y: number; readonly label?: string; static?: boolean }
type Shape = { kind: "circle"; r: number } | { kind: "rect"; w: number; h: number }
abstract class Base<T extends { id: string }> implements Iterable<T> {
  private static count = 0
  protected readonly items: T[] = []
  public name: string
  #secret = 1
  constructor(name: string) { this.name = name; Base.count++ }
  get size(): number { return this.items.length }
  set size(v: number) { this.items.length = v }
  static create(): void {}
  private helper(a: number, b = 2, ...rest: number[]): number { return a + b + rest.length }
  *[Symbol.iterator](): Iterator<T> { for (const item of this.items) yield item }
  async load(url: string): Promise<void> { const res = await fetch(url); this.items.push(...(await res.json())) }
  abstract describe(): string
}
class Derived extends Base<{ id: string }> {
  constructor() { super("derived") }
  describe() { return super.toString() + `${this.name}: ${this.size}` }
  override get size() { return super.size * 2 }
}
function area(s: Shape): number {
  switch (s.kind) {
    case "circle": return Math.PI * s.r ** 2
    case "rect": return s.w * s.h
    default: { const never: never = s; return never }
  }
}
function overload(a: string): string
function overload(a: number): number
function overload(a: any): any { return a }
function* range(start: number, end: number, step = 1): Generator<number> {
  for (let i = start; i < end; i += step) { yield i }
  const inner = function* () { yield* [1, 2, 3] }
  yield* inner()
}
const { a, b: [c, d = 4], ...others } = { a: 1, b: [2, 3], e: 5 } as any
let [first, , third = 3, ...tail] = [1, 2, 3, 4, 5]
;[first, third] = [third, first]
const obj: Record<string, number> = { alpha: 1, beta: 2, "gamma-delta": 3, 42: 4, [`k${a}`]: 5 }
delete obj.alpha
delete obj["beta"]
const fn = (x: number, { y, z }: { y: number; z: number }, [w]: number[] = [0]) => x + y + z + w
const maybe = obj?.alpha ?? obj.gamma ?? 0
let total = 0
outer: for (const k in obj) {
  for (const v of [1, 2, 3]) {
    if (v === 2) continue outer
    if (k === "x") break outer
    total += v
  }
}
try { JSON.parse("{") } catch (e) { const msg = (e as Error).message; total += msg.length } finally { total++ }
try { total++ } catch { total-- }
const re = /a+b*[c-d]\/(?<name>x)/giu
const str = "line\nbreak \x41 \u0041 \u{1F600} \0"
const tpl = `value: ${total > 0 ? "positive" : "negative"} ${fn(1, { y: 2, z: 3 })}`
var counter = 0
for (var j = 0; j < 3; j++) { var counter = counter + j }
if (total) { let shadow = 1; { let shadow = 2; total += shadow } total += shadow }
const point: Point = { x: 1, y: 2 }
point.x = point.y = 3
const { x, y } = point
const arr = [1, 2, 3].map((n) => n * 2).filter(Boolean).reduce((acc, n) => acc + n, 0)
const nested = { a: { b: { c: [1, { d: 2 }] } }, e: () => ({ f: 1 }) }
let count = 0; count++; --count; count ??= 1; count ||= 2; count &&= 3
const sum = async (...ns: number[]) => { let s = 0; for await (const n of ns) s += n; return s }
label1: { if (count) break label1; count = 0 }
const big = 123_456n + 0x1fn + BigInt(0o17) + 0b101n
const cls = class Named { static readonly x = 1; static { counter++ } }
type Mapped<T> = { readonly [K in keyof T]?: T[K] extends Function ? never : T[K] }
const results = await Promise.all([sum(1, 2), new Derived().load("x").catch(() => null)])
