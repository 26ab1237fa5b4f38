// Transcripts kept as a tree of entries (`id`, `parentId`), as pi and Droid write them: a rewind
// or a branch appends entries whose parent is an earlier one, so the file holds every branch ever
// tried. The session as it stands is the path from the last entry written back to the root.

export interface HeldEntry<T> {
  value: T;
  line: number | null;
}

interface Node<T> extends HeldEntry<T> {
  id: string | null;
  parentId: string | null;
}

export class EntryTree<T> {
  private readonly nodes: Node<T>[] = [];

  /** One entry in file order; one without an id stands outside the tree and is always kept. */
  add(id: string | null, parentId: string | null, value: T, line: number | null): void {
    this.nodes.push({ id, parentId, value, line });
  }

  /**
   * The entries on the branch taken (the last entry with an id, its parent, and so on to the root)
   * with those outside the tree, in file order; and the entries of abandoned branches.
   */
  split(): { taken: HeldEntry<T>[]; abandoned: HeldEntry<T>[] } {
    const byId = new Map<string, Node<T>>();
    let leaf: Node<T> | undefined;
    for (const node of this.nodes) {
      if (node.id === null) continue;
      byId.set(node.id, node);
      leaf = node;
    }
    const onPath = new Set<Node<T>>();
    // A parent that is missing or already seen (a cycle in a damaged file) ends the walk.
    for (let node = leaf; node !== undefined && !onPath.has(node); node = node.parentId === null ? undefined : byId.get(node.parentId)) {
      onPath.add(node);
    }
    const taken: HeldEntry<T>[] = [];
    const abandoned: HeldEntry<T>[] = [];
    for (const node of this.nodes) {
      const entry = { value: node.value, line: node.line };
      if (node.id === null || onPath.has(node)) taken.push(entry);
      else abandoned.push(entry);
    }
    return { taken, abandoned };
  }
}
