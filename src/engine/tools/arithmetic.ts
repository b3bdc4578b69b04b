// A small arithmetic parser for the calculator tool (Workers cannot eval, and it should not):
// numbers, operators, parentheses, constants and functions, with bounded length and nesting.

export class ArithmeticError extends Error {}

const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI, phi: (1 + Math.sqrt(5)) / 2 };
const FUNCTIONS: Record<string, [min: number, max: number, fn: (...a: number[]) => number]> = {
  abs: [1, 1, Math.abs],
  sqrt: [1, 1, Math.sqrt],
  cbrt: [1, 1, Math.cbrt],
  exp: [1, 1, Math.exp],
  ln: [1, 1, Math.log],
  log: [1, 2, (x, base) => (base === undefined ? Math.log(x) : Math.log(x) / Math.log(base))],
  log10: [1, 1, Math.log10],
  log2: [1, 1, Math.log2],
  sin: [1, 1, Math.sin],
  cos: [1, 1, Math.cos],
  tan: [1, 1, Math.tan],
  asin: [1, 1, Math.asin],
  acos: [1, 1, Math.acos],
  atan: [1, 1, Math.atan],
  atan2: [2, 2, Math.atan2],
  sinh: [1, 1, Math.sinh],
  cosh: [1, 1, Math.cosh],
  tanh: [1, 1, Math.tanh],
  floor: [1, 1, Math.floor],
  ceil: [1, 1, Math.ceil],
  round: [1, 1, Math.round],
  trunc: [1, 1, Math.trunc],
  sign: [1, 1, Math.sign],
  pow: [2, 2, Math.pow],
  min: [1, 100, Math.min],
  max: [1, 100, Math.max],
  hypot: [1, 100, Math.hypot],
  fac: [1, 1, (n) => factorial(n)],
};

function factorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new ArithmeticError("factorial needs a non-negative integer");
  if (n > 170) return Infinity;
  let r = 1;
  for (let i = 2; i <= n; i++) r *= i;
  return r;
}

/**
 * Evaluates an arithmetic expression: numbers (1.5, 2e3, 1_000), + - * / % ^ ** (power, right
 * associative), unary +/-, postfix ! (factorial), parentheses, constants (pi, e, tau, phi) and
 * functions (sqrt, log, sin, min, max, …). Throws ArithmeticError for anything else.
 */
export function evaluateArithmetic(source: string): number {
  if (source.length > 1000) throw new ArithmeticError("the expression is longer than 1000 characters");
  const text = source.replace(/×/g, "*").replace(/÷/g, "/").replace(/−/g, "-");
  const tokens = text.match(/\d[\d_]*(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?|\*\*|[A-Za-z_][A-Za-z_0-9]*|\S/gi) ?? [];
  let i = 0;
  let depth = 0;
  const peek = () => tokens[i];
  const take = (t?: string) => {
    const token = tokens[i];
    if (t !== undefined && token !== t)
      throw new ArithmeticError(token === undefined ? `expected "${t}" at the end` : `expected "${t}" but found "${token}"`);
    i++;
    return token;
  };
  const nested = <T>(f: () => T): T => {
    if (++depth > 200) throw new ArithmeticError("the expression is nested too deeply");
    try {
      return f();
    } finally {
      depth--;
    }
  };

  const additive = (): number =>
    nested(() => {
      let v = multiplicative();
      while (peek() === "+" || peek() === "-") v = take() === "+" ? v + multiplicative() : v - multiplicative();
      return v;
    });
  const multiplicative = (): number => {
    let v = unary();
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const op = take();
      const r = unary();
      v = op === "*" ? v * r : op === "/" ? v / r : v % r;
    }
    return v;
  };
  const unary = (): number =>
    nested(() => {
      if (peek() === "-") return (take(), -unary());
      if (peek() === "+") return (take(), unary());
      return power();
    });
  const power = (): number => {
    const base = postfix();
    if (peek() === "^" || peek() === "**") {
      take();
      return base ** unary();
    }
    return base;
  };
  const postfix = (): number => {
    let v = primary();
    while (peek() === "!") {
      take();
      v = factorial(v);
    }
    return v;
  };
  const primary = (): number => {
    const t = take();
    if (t === undefined) throw new ArithmeticError("the expression ends too early");
    if (/^[\d.]/.test(t)) {
      const n = Number(t.replace(/_/g, ""));
      if (!Number.isFinite(n)) throw new ArithmeticError(`"${t}" is not a number`);
      return n;
    }
    if (t === "(") {
      const v = additive();
      take(")");
      return v;
    }
    if (/^[A-Za-z_]/.test(t)) {
      const name = t.toLowerCase();
      if (peek() === "(") {
        const fn = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
        if (!fn) throw new ArithmeticError(`unknown function "${t}"`);
        take("(");
        const args: number[] = [];
        if (peek() !== ")") {
          args.push(additive());
          while (peek() === ",") take(), args.push(additive());
        }
        take(")");
        const [min, max, f] = fn;
        if (args.length < min || args.length > max)
          throw new ArithmeticError(`${name} takes ${min === max ? min : `${min} to ${max}`} argument(s)`);
        return f(...args);
      }
      if (Object.hasOwn(CONSTANTS, name)) return CONSTANTS[name];
      throw new ArithmeticError(`unknown name "${t}"`);
    }
    throw new ArithmeticError(`unexpected "${t}"`);
  };

  if (!tokens.length) throw new ArithmeticError("the expression is empty");
  const value = additive();
  if (i < tokens.length) throw new ArithmeticError(`unexpected "${tokens[i]}"`);
  return value;
}
