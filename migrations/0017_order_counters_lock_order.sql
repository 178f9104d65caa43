-- The counter trigger takes its row locks in one order (organization, scope, state), and only on the rows
-- whose count changes. Before, it decremented the old states' rows, then incremented the new states'
-- rows: a move In Progress → Action Required and, at the same time, another order's move Action Required
-- → In Progress in the same scope locked the two rows in opposite orders, and PostgreSQL ended one of
-- them with "deadlock detected" (seen by the concurrent-moves property test). Now both deltas are summed
-- per row and applied by one statement in key order, so two moves can wait on each other's row but never
-- in a circle; an update that changes no order's state or scope (an edit) touches no counter row at all.
CREATE OR REPLACE FUNCTION order_counters_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO order_counters AS c (organization_id, scope_key, project_id, owner_key, order_state, order_count)
    SELECT organization_id,
           CASE WHEN project_id IS NULL THEN 'personal:' || owner_key ELSE 'project:' || project_id::text END AS scope_key,
           project_id, CASE WHEN project_id IS NULL THEN owner_key END, order_state, count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 5
    ON CONFLICT (organization_id, scope_key, order_state)
    DO UPDATE SET order_count = c.order_count + EXCLUDED.order_count;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO order_counters AS c (organization_id, scope_key, project_id, owner_key, order_state, order_count)
    SELECT organization_id,
           CASE WHEN project_id IS NULL THEN 'personal:' || owner_key ELSE 'project:' || project_id::text END AS scope_key,
           project_id, CASE WHEN project_id IS NULL THEN owner_key END, order_state, -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 5
    ON CONFLICT (organization_id, scope_key, order_state)
    DO UPDATE SET order_count = c.order_count + EXCLUDED.order_count;
  ELSE
    INSERT INTO order_counters AS c (organization_id, scope_key, project_id, owner_key, order_state, order_count)
    SELECT organization_id, scope_key, project_id, owner_key, order_state, sum(delta)
    FROM (
      SELECT organization_id,
             CASE WHEN project_id IS NULL THEN 'personal:' || owner_key ELSE 'project:' || project_id::text END AS scope_key,
             project_id, CASE WHEN project_id IS NULL THEN owner_key END AS owner_key, order_state, -1 AS delta
      FROM old_rows
      UNION ALL
      SELECT organization_id,
             CASE WHEN project_id IS NULL THEN 'personal:' || owner_key ELSE 'project:' || project_id::text END,
             project_id, CASE WHEN project_id IS NULL THEN owner_key END, order_state, 1
      FROM new_rows
    ) AS deltas
    GROUP BY 1, 2, 3, 4, 5
    HAVING sum(delta) <> 0
    ORDER BY 1, 2, 5
    ON CONFLICT (organization_id, scope_key, order_state)
    DO UPDATE SET order_count = c.order_count + EXCLUDED.order_count;
  END IF;
  RETURN NULL;
END;
$$;
