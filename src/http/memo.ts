/**
 * Values the routes compute on first use and keep for the life of the app
 * (a loaded file, a generated document). They live in an object `createApp`
 * makes, not in module state, so two apps in one process never share them.
 */

/** A typed key of one memoized value; declare it next to the code that computes it. */
export type MemoKey<T> = symbol & { readonly value?: T };

/** Creates a key for a value of type `T`; `name` only labels it when debugging. */
export function memoKey<T>(name: string): MemoKey<T> {
  return Symbol(name) as MemoKey<T>;
}

/** The value of `key`, computed by `make` the first time it is asked for. */
export type Memo = <T>(key: MemoKey<T>, make: () => NoInfer<T>) => T;

/** Creates an empty memo. */
export function createMemo(): Memo {
  const values = new Map<symbol, unknown>();
  return <T>(key: MemoKey<T>, make: () => T): T => {
    if (values.has(key)) return values.get(key) as T;
    const value = make();
    values.set(key, value);
    return value;
  };
}
