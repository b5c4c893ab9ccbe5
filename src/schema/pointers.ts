/**
 * Containment between JSON pointers, for the reference graph (`refs.ts`, `inline.ts`): whether one
 * pointer lies inside another, and an index that finds every stored pointer a given pointer lies inside
 * in one pass over its tokens, so a pass over all references stays linear in the schema's size instead
 * of comparing every reference with every target. Pointers are `""` (the root) or start with `/`, and
 * are compared as escaped text, token by token.
 * Source: RFC 6901 (JSON Pointer); docs/robustness.md (an absurd schema costs only its own tool).
 */

const SLASH = 0x2f;

/** True when `ptr` is `outer` or lies inside it (`outer` followed by `/`). */
export function within(ptr: string, outer: string): boolean {
  if (ptr.length === outer.length) return ptr === outer;
  return ptr.length > outer.length && ptr.charCodeAt(outer.length) === SLASH && ptr.startsWith(outer);
}

interface TrieNode<T> {
  readonly children: Map<string, TrieNode<T>>;
  value?: { readonly item: T };
}

/**
 * Items stored under JSON pointers (adding a pointer again replaces its item). A lookup costs one step
 * per token it shares with stored pointers, however many items are stored.
 */
export class PointerIndex<T> {
  private readonly root: TrieNode<T> = { children: new Map() };

  /** Stores `item` under `ptr`. */
  add(ptr: string, item: T): void {
    let node = this.root;
    for (let slash = ptr.indexOf('/'); slash >= 0; slash = ptr.indexOf('/', slash + 1)) {
      const token = tokenAt(ptr, slash);
      let child = node.children.get(token);
      if (child === undefined) {
        child = { children: new Map() };
        node.children.set(token, child);
      }
      node = child;
    }
    node.value = { item };
  }

  /** The items of every stored pointer `ptr` lies inside (itself included), outermost first. */
  along(ptr: string): T[] {
    const found: T[] = [];
    let node: TrieNode<T> | undefined = this.root;
    for (let slash = ptr.indexOf('/'); node !== undefined; slash = slash < 0 ? -1 : ptr.indexOf('/', slash + 1)) {
      if (node.value !== undefined) found.push(node.value.item);
      // Most lookups reach a node with nothing stored below it: stop before slicing the pointer.
      node = slash < 0 || node.children.size === 0 ? undefined : node.children.get(tokenAt(ptr, slash));
    }
    return found;
  }
}

/** The escaped token of `ptr` that starts after the `/` at `slash`: in `"/a/b"`, `a` at 0 and `b` at 2. */
function tokenAt(ptr: string, slash: number): string {
  const end = ptr.indexOf('/', slash + 1);
  return ptr.slice(slash + 1, end < 0 ? undefined : end);
}
