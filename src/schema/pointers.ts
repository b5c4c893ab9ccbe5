/**
 * Containment between JSON pointers, for the reference graph (`refs.ts`, `inline.ts`): an index that
 * finds every stored pointer a given pointer lies inside, in one pass over that pointer's tokens. A pass
 * over all references thus stays linear in the schema's size instead of comparing every reference with
 * every definition. Pointers are compared as escaped text, token by token.
 * Source: RFC 6901 (JSON Pointer); DESIGN §7 (projection must not block the gateway).
 */

interface TrieNode<T> {
  readonly children: Map<string, TrieNode<T>>;
  value?: { readonly item: T };
}

/**
 * Items stored under JSON pointers (`""` or starting with `/`; adding a pointer again replaces its item).
 * A pointer lies inside a stored pointer `p` when it is `p` or starts with `p` + `/`, i.e. when `p`'s
 * tokens are a prefix of its own. Lookups cost one step per token shared with stored pointers, however
 * many items are stored.
 */
export class PointerIndex<T> {
  private readonly root: TrieNode<T> = { children: new Map() };

  /** Stores `item` under `ptr`. */
  add(ptr: string, item: T): void {
    let node = this.root;
    for (let start = ptr.indexOf('/'); start >= 0; start = nextSlash(ptr, start)) {
      const token = tokenAt(ptr, start);
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
    for (let start = ptr.indexOf('/'); node !== undefined; start = nextSlash(ptr, start)) {
      if (node.value !== undefined) found.push(node.value.item);
      // Most walks meet a trie with no pointers below the root: stop before splitting the pointer.
      node = start < 0 || node.children.size === 0 ? undefined : node.children.get(tokenAt(ptr, start));
    }
    return found;
  }

  /** The item of the innermost stored pointer `ptr` lies inside (itself included), or undefined. */
  innermost(ptr: string): T | undefined {
    return this.along(ptr).at(-1);
  }
}

/** The escaped token of `ptr` that starts after the `/` at `slash`: in `"/a/b"`, `a` at 0 and `b` at 2. */
function tokenAt(ptr: string, slash: number): string {
  const end = ptr.indexOf('/', slash + 1);
  return ptr.slice(slash + 1, end < 0 ? undefined : end);
}

/** The index of the `/` after the one at `slash`, or -1 after the last token. */
function nextSlash(ptr: string, slash: number): number {
  return ptr.indexOf('/', slash + 1);
}
