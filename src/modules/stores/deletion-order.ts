/** One table of a store's deletion: its self-references are cleared first, then its rows go. */
export interface DeletionStep {
  table: string;
  /** Columns of foreign keys from the table to itself (besides store_id), set to NULL first. */
  selfReferences: string[];
}

/**
 * The order in which a store's tables are emptied: every table before the tables it references
 * (children first: order items before orders, orders before customers), so no batch is refused by a
 * foreign key whose rows another batch has yet to delete. Foreign keys to tables outside `tables`
 * (stores, admin_users) do not constrain it. Tables with no foreign key to or from another of them
 * come last: the summaries that triggers keep (product_counts, analytics_*) are such tables, and a
 * trigger of a deleted row updates them (a count going below zero if they went first). Ties by
 * name, so the order is the same every run.
 */
export function deletionOrder(
  tables: readonly string[],
  foreignKeys: readonly { child: string; parent: string; columns: readonly string[] }[],
): DeletionStep[] {
  const known = new Set(tables);
  const connected = new Set<string>();
  const children = new Map<string, Set<string>>(tables.map((table) => [table, new Set()]));
  const selfReferences = new Map<string, string[]>(tables.map((table) => [table, []]));
  for (const { child, parent, columns } of foreignKeys) {
    if (!known.has(child) || !known.has(parent)) continue;
    if (child === parent) {
      const own = selfReferences.get(child) ?? [];
      for (const column of columns) if (column !== 'store_id' && !own.includes(column)) own.push(column);
      continue;
    }
    children.get(parent)?.add(child);
    connected.add(child).add(parent);
  }
  const order: DeletionStep[] = [];
  const done = new Set<string>();
  while (done.size < known.size) {
    const free = [...known].filter(
      (table) => !done.has(table) && [...(children.get(table) ?? [])].every((c) => done.has(c)),
    );
    const connectedLeft = [...connected].some((table) => !done.has(table));
    const ready = (connectedLeft ? free.filter((table) => connected.has(table)) : free).sort();
    if (ready.length === 0) {
      const left = [...known].filter((table) => !done.has(table)).sort();
      throw new Error(`foreign keys form a cycle among ${left.join(', ')}: no deletion order exists`);
    }
    for (const table of ready) {
      done.add(table);
      order.push({ table, selfReferences: (selfReferences.get(table) ?? []).sort() });
    }
  }
  return order;
}
