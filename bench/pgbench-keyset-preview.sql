-- The bare keyset SELECT behind GET /v1/orders?project_id=All+Projects&limit=200&preview=true for an
-- organization administrator (first page): the same columns, predicate, order and limit+1 as
-- order-listing.repository.ts reads for previews.
-- Run by bench/orders.ts: pgbench -M extended -D org=<organization uuid> -f bench/pgbench-keyset-preview.sql
SELECT o.order_id, o.project_id::text AS project_id,
       ((extract(epoch FROM o.creation_time) * 1000000)::bigint)::text AS creation_micros,
       o.asset_preview_key, '[]'::jsonb AS layers, o.preview_doc AS body
FROM orders o
WHERE o.organization_id = :org::uuid AND TRUE
ORDER BY o.creation_time DESC, o.order_id DESC
LIMIT 201;
