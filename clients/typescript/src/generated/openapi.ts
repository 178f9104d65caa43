// GENERATED from certdesk's served OpenAPI document (GET /openapi.json) by openapi-typescript.
// Do not edit: run `npm run generate -w @certdesk/client`. A test fails when this file is out of date.
/* eslint-disable */
export interface paths {
    "/log/checkpoint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Log Checkpoint
         * @description The transparency log's newest signed checkpoint: a C2SP tlog-checkpoint (origin, tree size, base64 RFC 6962 root hash) signed as a C2SP signed-note with the key of `GET /log/key`. Public, CORS open, `Cache-Control: no-cache`; 404 before the log published its first one.
         */
        get: operations["get_log_checkpoint_log_checkpoint_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/log/key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Log Key
         * @description The verifier key of the log's checkpoints (C2SP signed-note, Ed25519): `<name>+<8 hex key id>+<base64 of 0x01 || public key>`, the name being the log's origin, followed by a newline. Public, CORS open.
         */
        get: operations["get_log_key_log_key_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/log/tile/{tile_path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Log Tile
         * @description A C2SP tlog-tiles resource: a hash tile `tile/<L>/<N>[.p/<W>]` (height 8: 256 hashes of 32 bytes, or W of a partial tile) or an entry bundle `tile/entries/<N>[.p/<W>]` (each entry a big-endian uint16 length, then its bytes), `<N>` in 3-digit elements all but the last prefixed `x` (`x001/x234/067`); `tile_path` is everything after `/log/tile/`, slashes included. Full tiles `Cache-Control: public, max-age=31536000, immutable`, partial ones `public, max-age=60`. A path that is not a tile path, or a tile that does not exist, is 404.
         */
        get: operations["get_log_tile_log_tile__tile_path__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue Access Token
         * @description OAuth 2.0 client credentials grant (RFC 6749 4.4). The client authenticates with HTTP Basic (`client_secret_basic`, RFC 6749 2.3.1) or with `client_id` and `client_secret` in the form (`client_secret_post`), never both. Answers carry `Cache-Control: no-store`. By default ten failed authentications for a client id or an address within five minutes answer 429 with `Retry-After`.
         */
        post: operations["issue_token_oauth2_token_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/certificates/{certificate_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Certificate
         * @description A certificate by id, for anyone (no credentials; `Access-Control-Allow-Origin: *`). Answers carry an ETag and `Cache-Control: no-cache`, so a revocation shows at once; `If-None-Match` gives 304. Unknown or malformed ids are 404.
         */
        get: operations["get_certificate_v1_certificates__certificate_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Orders
         * @description Lists the certificate orders of the organization that the caller sees, newest first, paginated.
         */
        get: operations["get_orders_v1_orders_get"];
        put?: never;
        /**
         * Create Order
         * @description Creates an order from an upload whose bytes have arrived (JSON with `upload_id`), or from a file sent in the request (`multipart/form-data`, at most 25 MiB, the fields before the file: nothing is stored unless every check passed). The order starts `In Progress` and its analysis is queued.
         */
        post: operations["create_order_v1_orders_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders/{order_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Order
         * @description One order, with presigned URLs; 404 when it does not exist or the caller may not see it.
         */
        get: operations["get_order_v1_orders__order_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders/{order_id}/certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Order Certificate
         * @description The certificate of a `Human Certified` order; 404 while the order has none, or when the caller may not see the order.
         */
        get: operations["get_order_certificate_v1_orders__order_id__certificate_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders/{order_id}/certificate/file": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Order Certificate File
         * @description The certified asset with Content Credentials: a copy of the file as uploaded with a C2PA manifest embedded that carries the certificate (assertion `org.certdesk.certificate`), signed with the service's C2PA signing certificate (docs/content-credentials.md). Streamed with the asset's media type and `Content-Disposition: attachment` naming the asset. 404 while the order has no certificate (or is not visible); 409 while the file is being made (`Retry-After`) or when the format cannot carry Content Credentials (the detail says so; the certificate object says `content_credentials`); 410 once the certificate is revoked.
         */
        get: operations["get_order_certificate_file_v1_orders__order_id__certificate_file_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders/{order_id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Order History
         * @description The events of an order, oldest first: its creation, every state change with its reason, the analysis, the customer's responses and the reviewers' actions, each with who, when and what changed. 404 when the order does not exist or the caller may not see it.
         */
        get: operations["get_order_history_v1_orders__order_id__history_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders/{order_id}/responses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Respond To Order
         * @description The customer's answer to `Action Required` (explanation and evidence uploads); the order returns to `In Progress` for review.
         */
        post: operations["respond_to_order_v1_orders__order_id__responses_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/organizations/{organization_id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Organization Members
         * @description Returns the e-mail addresses of the organization's members, administrators and others apart, each list sorted.
         */
        get: operations["get_organization_members_v1_organizations__organization_id__members_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Projects
         * @description Returns the organization's projects the caller sees, sorted by name.
         */
        get: operations["get_projects_v1_projects_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Project
         * @description Returns the details of one project the caller sees.
         */
        get: operations["get_project_v1_projects__project_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create Upload
         * @description Announces a file and returns a presigned URL to which the client PUTs its bytes directly (object storage).
         */
        post: operations["create_upload_v1_uploads_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Webhook Endpoints
         * @description The organization's endpoints, oldest first.
         */
        get: operations["list_webhook_endpoints_v1_webhook_endpoints_get"];
        put?: never;
        /**
         * Create Webhook Endpoint
         * @description Adds an endpoint that receives the chosen events, signed per Standard Webhooks. The answer carries the signing secret: it is shown only here (and on rotation).
         */
        post: operations["create_webhook_endpoint_v1_webhook_endpoints_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{endpoint_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Webhook Endpoint
         * @description One endpoint; `disabled_reason` says why the service disabled it.
         */
        get: operations["get_webhook_endpoint_v1_webhook_endpoints__endpoint_id__get"];
        put?: never;
        post?: never;
        /**
         * Delete Webhook Endpoint
         * @description Deletes the endpoint and its delivery log; its pending deliveries are not sent.
         */
        delete: operations["delete_webhook_endpoint_v1_webhook_endpoints__endpoint_id__delete"];
        options?: never;
        head?: never;
        /**
         * Update Webhook Endpoint
         * @description Changes the given fields. Setting `status` (to `enabled` or `disabled`) clears the reason the service disabled it for.
         */
        patch: operations["update_webhook_endpoint_v1_webhook_endpoints__endpoint_id__patch"];
        trace?: never;
    };
    "/v1/webhook-endpoints/{endpoint_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Webhook Deliveries
         * @description The delivery log of an endpoint, newest first, paged with `next_page_token`.
         */
        get: operations["list_webhook_deliveries_v1_webhook_endpoints__endpoint_id__deliveries_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry Webhook Delivery
         * @description Sends the delivery again (same `webhook-id`), whatever its status; it is queued and sent in the background.
         */
        post: operations["retry_webhook_delivery_v1_webhook_endpoints__endpoint_id__deliveries__delivery_id__retry_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{endpoint_id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate Webhook Endpoint Secret
         * @description A new signing secret, shown only here. For 24 hours deliveries carry two signatures, one with each secret.
         */
        post: operations["rotate_webhook_endpoint_secret_v1_webhook_endpoints__endpoint_id__rotate_secret_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** Annotation */
        Annotation: {
            bodies?: components["schemas"]["AnnotationBody"][];
            id?: string | null;
            properties?: components["schemas"]["HumanAnnotationProperties"];
            target?: components["schemas"]["AnnotationTarget"] | null;
        };
        /** AnnotationBody */
        AnnotationBody: {
            annotation: string;
            id: string;
            value: string;
        };
        /** AnnotationTarget */
        AnnotationTarget: {
            annotation: string;
            selector: components["schemas"]["HumanAnnotationSelector"];
        };
        /**
         * Certificate
         * @description The certificate of an order.
         */
        Certificate: {
            /** @description File name of the certified asset. */
            asset_name: string;
            /** @description Lowercase hex SHA-256 of the asset’s bytes as uploaded. */
            asset_sha256: string;
            /**
             * Format: uuid
             * @description The certificate id (a random UUID; the `jti` claim).
             */
            certificate_id: string;
            /** @description The credentialed copy of the asset (a C2PA manifest carrying this certificate, embedded in a copy of the file as uploaded): `pending` while it is being made (normally under 60 s after issue), `ready` once `GET /v1/orders/{order_id}/certificate/file` serves it, `unsupported` when the format cannot carry Content Credentials (PSD) or the file's own manifest could not be read safely. */
            content_credentials: "pending" | "ready" | "unsupported";
            /**
             * Format: date-time
             * @description RFC 3339 UTC time of issue.
             */
            issued_at: string;
            /** @description The certificate: a compact JWS (ES256, `typ` `certdesk-certificate+jwt`), verifiable with `/.well-known/jwks.json` alone. */
            jws: string;
            /** @description The certified order (the `sub` claim). */
            order_id: string;
            revocation_reason: string | null;
            revoked_at: string | null;
            /** @description `revoked` once revoked (final). */
            status: "valid" | "revoked";
            /** @description The certificate in the public transparency log (`/log/`): null until its issuance is in a published signed checkpoint (within 2 s, p99), then where its entries are with their inclusion proofs. */
            transparency_log: components["schemas"]["TransparencyLog"] | null;
            /**
             * Format: uri
             * @description The public page that verifies the certificate: `<public base URL>/verify/<certificate_id>`.
             */
            verify_url: string;
        };
        /** DetectionConfig */
        DetectionConfig: {
            default_object_flag_threshold: number;
            default_weighted_confidence_threshold: number;
            object_flag_threshold: number;
            org_object_flag_threshold: number;
            org_weighted_confidence_threshold: number;
            weighted_confidence_threshold: number;
        };
        /** ErrorDetail */
        ErrorDetail: {
            detail: string;
        };
        /** FailedAnalysisItem */
        FailedAnalysisItem: {
            /**
             * @description AI score.
             * @default 0
             */
            ai_likelihood: number;
            annotation_id: string | null;
            /** @default [] */
            annotation_ids: string[];
            name: string;
            /** @description Path of the item in object storage. */
            storage_path: string;
            type: string;
        };
        /** FieldChange */
        FieldChange: {
            /** @description The value after the event. */
            after: unknown;
            /** @description The value before the event (null or the interface default when it had none). */
            before: unknown;
        };
        /** GetOrdersResponse */
        GetOrdersResponse: {
            next_page_token: string | null;
            order_previews: components["schemas"]["OrderPreview"][] | null;
            order_stats: components["schemas"]["OrderStats"];
            orders: components["schemas"]["Order"][] | null;
            project_names: string[];
        };
        /** HTTPValidationError */
        HTTPValidationError: {
            detail: components["schemas"]["ValidationError"][];
        };
        /** HumanAnnotationGeometry */
        HumanAnnotationGeometry: {
            bounds: components["schemas"]["HumanAnnotationGeometryBounds"];
            h?: number | null;
            points?: number[][] | null;
            w?: number | null;
            x?: number | null;
            y?: number | null;
        };
        /** HumanAnnotationGeometryBounds */
        HumanAnnotationGeometryBounds: {
            maxX: number;
            maxY: number;
            minX: number;
            minY: number;
        };
        /** HumanAnnotationProperties */
        HumanAnnotationProperties: {
            ai_likelihood?: number | null;
            needs_remediation?: boolean | null;
        };
        /** HumanAnnotationSelector */
        HumanAnnotationSelector: {
            geometry: components["schemas"]["HumanAnnotationGeometry"];
            type: components["schemas"]["HumanAnnotationSelectorType"];
        };
        /**
         * HumanAnnotationSelectorType
         * @enum {string}
         */
        HumanAnnotationSelectorType: "RECTANGLE" | "POLYGON";
        /**
         * HumanOrderState
         * @description State of a certificate order.
         * @enum {string}
         */
        HumanOrderState: "In Progress" | "Human Certified" | "Action Required" | "Reviewed" | "Failed" | "Unsupported File";
        /** LayerInfo */
        LayerInfo: {
            layer_name: string;
            layer_url: string;
        };
        /** Order */
        Order: {
            /** @default [] */
            analysis_failed_items: components["schemas"]["FailedAnalysisItem"][];
            /** @default [] */
            analysis_list: components["schemas"]["OrderAnalysisLine"][];
            /** @default [] */
            annotations: components["schemas"]["Annotation"][];
            asset_id: string;
            /** @description Unix timestamp (seconds) as a string, as provided at order creation. */
            asset_last_modified_timestamp: string;
            asset_name: string;
            asset_preview_url: string | null;
            /** @default 0 */
            confidence: number;
            /**
             * Format: date-time
             * @description RFC 3339 UTC timestamp of order creation.
             */
            creation_time: string;
            /** @description E-mail of the user who created the order. */
            email: string;
            /** @default [] */
            layers_info: components["schemas"]["LayerInfo"][];
            /** @description Unique order identifier. */
            order_id: string;
            order_state: components["schemas"]["HumanOrderState"];
            order_title: string;
            ordered_by: string | null;
            project: components["schemas"]["OrderProject"] | null;
            /**
             * @description 0.0 = not set, 0.5 = not recommended, 1.0 = recommended.
             * @default 0
             */
            remediation: number;
            review_timestamp: string | null;
            reviewed_by: string | null;
            /** @default [] */
            tags: string[];
            /** @description Username of the user who created the order. */
            username: string;
        };
        /** OrderAnalysisLine */
        OrderAnalysisLine: {
            analysis_passed: boolean;
            analysis_type: string;
        };
        /**
         * OrderEventType
         * @description What happened: a move (`created`, `state_changed`, `responded`) or an action that leaves the state as it is.
         * @enum {string}
         */
        OrderEventType: "created" | "state_changed" | "analysis_completed" | "annotation_changed" | "claimed" | "responded" | "certificate_issued" | "certificate_revoked";
        /** OrderHistory */
        OrderHistory: {
            /** @description Oldest first, in the order they were recorded. */
            events: components["schemas"]["OrderHistoryEvent"][];
        };
        /** OrderHistoryEvent */
        OrderHistoryEvent: {
            /** @description Who: a user's (or reviewer's) e-mail, or `certdesk:<component>` for certdesk itself (e.g. `certdesk:analysis`). */
            actor: string;
            /**
             * Format: date-time
             * @description When it was recorded: RFC 3339 UTC, at most microseconds.
             */
            at: string;
            /** @description The order fields the event changed, `{field: {before, after}}`; null when it changed none. */
            changes: {
                [key: string]: components["schemas"]["FieldChange"];
            } | null;
            /**
             * Format: uuid
             * @description Stable id of the event.
             */
            event_id: string;
            from_state: components["schemas"]["HumanOrderState"] | null;
            note: string | null;
            to_state: components["schemas"]["HumanOrderState"] | null;
            type: components["schemas"]["OrderEventType"];
        };
        /** OrderPreview */
        OrderPreview: {
            /** @default [] */
            analysis_list: components["schemas"]["OrderAnalysisLine"][];
            asset_preview_url: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC timestamp of order creation.
             */
            creation_time: string;
            order_id: string;
            order_state: components["schemas"]["HumanOrderState"];
            order_title: string;
            project_name: string | null;
            /** @default [] */
            tags: string[];
        };
        /** OrderProject */
        OrderProject: {
            id: string;
            name: string;
            /**
             * @description The caller's role in the project: the membership's role, else `admin` for an organization administrator.
             * @enum {string}
             */
            userRole: "admin" | "editor" | "viewer";
        };
        /** OrderStats */
        OrderStats: {
            /** @default 0 */
            total_action_required: number;
            /** @default 0 */
            total_certified: number;
            /** @default 0 */
            total_failed: number;
            /** @default 0 */
            total_in_progress: number;
            /** @default 0 */
            total_orders: number;
            /** @default 0 */
            total_reviewed: number;
            /** @default 0 */
            total_unsupported: number;
        };
        /** OrganizationMembers */
        OrganizationMembers: {
            not_org_admins: string[];
            org_admins: string[];
        };
        /** Project */
        Project: {
            /**
             * Format: date-time
             * @description RFC 3339 UTC timestamp of the project's creation.
             */
            date_created: string;
            detection_config: components["schemas"]["DetectionConfig"];
            id: string;
            members: components["schemas"]["ProjectMember"][];
            name: string;
        };
        /** ProjectMember */
        ProjectMember: {
            email: string;
            /**
             * @description Role of the member in the project.
             * @enum {string}
             */
            role: "admin" | "editor" | "viewer";
        };
        /**
         * PublicCertificate
         * @description A certificate as anyone with its id sees it (no credentials).
         */
        PublicCertificate: {
            /** @description File name of the certified asset. */
            asset_name: string;
            /** @description Lowercase hex SHA-256 of the asset’s bytes as uploaded. */
            asset_sha256: string;
            /**
             * Format: uuid
             * @description The certificate id (a random UUID; the `jti` claim).
             */
            certificate_id: string;
            /** @description The credentialed copy of the asset (a C2PA manifest carrying this certificate, embedded in a copy of the file as uploaded): `pending` while it is being made (normally under 60 s after issue), `ready` once `GET /v1/orders/{order_id}/certificate/file` serves it, `unsupported` when the format cannot carry Content Credentials (PSD) or the file's own manifest could not be read safely. */
            content_credentials: "pending" | "ready" | "unsupported";
            /**
             * Format: date-time
             * @description RFC 3339 UTC time of issue.
             */
            issued_at: string;
            /** @description The certificate: a compact JWS (ES256, `typ` `certdesk-certificate+jwt`), verifiable with `/.well-known/jwks.json` alone. */
            jws: string;
            revocation_reason: string | null;
            revoked_at: string | null;
            /** @description `revoked` once revoked (final). */
            status: "valid" | "revoked";
            /** @description The certificate in the public transparency log (`/log/`): null until its issuance is in a published signed checkpoint (within 2 s, p99), then where its entries are with their inclusion proofs. */
            transparency_log: components["schemas"]["TransparencyLog"] | null;
            /**
             * Format: uri
             * @description The public page that verifies the certificate: `<public base URL>/verify/<certificate_id>`.
             */
            verify_url: string;
        };
        /**
         * TransparencyLog
         * @description The certificate in the public transparency log (docs/transparency-log.md).
         */
        TransparencyLog: {
            issued: components["schemas"]["TransparencyLogInclusion"];
            /** @description The log's origin: `<public base URL without scheme>/log`, the first line of its checkpoints and its key name. */
            origin: string;
            /** @description The revocation's entry; null while the certificate is valid, and while its revocation is not sequenced yet. */
            revoked: components["schemas"]["TransparencyLogInclusion"] | null;
        };
        /** TransparencyLogInclusion */
        TransparencyLogInclusion: {
            /** @description The full signed note (C2SP tlog-checkpoint, signed per C2SP signed-note with the log's Ed25519 key, `GET /log/key`) the proof leads to: the first checkpoint that included the entry. */
            checkpoint: string;
            /** @description The exact entry text (UTF-8 JSON, RFC 8785 canonical): `{"at":"<RFC 3339 UTC with milliseconds>","certificate_sha256":"<hex SHA-256 of the compact JWS>","type":"certificate.issued"|"certificate.revoked"}`. Its leaf hash is SHA-256(0x00 || entry). */
            entry: string;
            /** @description The RFC 6962 audit path of the entry in the tree of `checkpoint` (base64 hashes, leaf to root). */
            inclusion_proof: string[];
            /** @description The entry's index in the log (0-based, as in the tiles). */
            index: number;
        };
        /** ValidationError */
        ValidationError: {
            ctx?: {
                [key: string]: unknown;
            };
            input?: unknown;
            loc: (string | number)[];
            msg: string;
            type: string;
        };
        /**
         * WebhookDelivery
         * @description One event sent (or to send) to one endpoint.
         */
        WebhookDelivery: {
            attempts: number;
            /**
             * Format: uuid
             * @description The `webhook-id` header: the same for every endpoint and every retry.
             */
            event_id: string;
            /** @description The event's type; `webhook.test` for a test event sent from the organization page (never subscribed to). */
            event_type: components["schemas"]["WebhookEventType"] | "webhook.test";
            /** Format: uuid */
            id: string;
            last_attempt_at: string | null;
            latency_ms: number | null;
            next_attempt_at: string | null;
            response_status: number | null;
            status: "pending" | "succeeded" | "failed";
        };
        /**
         * WebhookDeliveryPage
         * @description Deliveries, newest first.
         */
        WebhookDeliveryPage: {
            deliveries: components["schemas"]["WebhookDelivery"][];
            next_page_token: string | null;
        };
        /**
         * WebhookEndpoint
         * @description A webhook endpoint of the organization.
         */
        WebhookEndpoint: {
            /** Format: date-time */
            created_at: string;
            description: string | null;
            disabled_reason: string | null;
            events: components["schemas"]["WebhookEventType"][];
            /** Format: uuid */
            id: string;
            /** @description `disabled`: no event is sent (by a user, or by the service after a 410 or 3 days of failures). */
            status: "enabled" | "disabled";
            url: string;
        };
        /** WebhookEndpointList */
        WebhookEndpointList: {
            webhook_endpoints: components["schemas"]["WebhookEndpoint"][];
        };
        /**
         * WebhookEndpointWithSecret
         * @description A new endpoint with its signing secret.
         */
        WebhookEndpointWithSecret: {
            /** Format: date-time */
            created_at: string;
            description: string | null;
            disabled_reason: string | null;
            events: components["schemas"]["WebhookEventType"][];
            /** Format: uuid */
            id: string;
            /** @description The signing secret (`whsec_` + base64 of 32 random bytes), shown only here and on rotation. */
            secret: string;
            /** @description `disabled`: no event is sent (by a user, or by the service after a 410 or 3 days of failures). */
            status: "enabled" | "disabled";
            url: string;
        };
        /**
         * WebhookEventType
         * @description An event a webhook endpoint can subscribe to.
         */
        WebhookEventType: "order.created" | "order.state_changed" | "certificate.issued" | "certificate.revoked";
        /** WebhookSecret */
        WebhookSecret: {
            /** @description The new signing secret; the old one keeps signing beside it for 24 hours. */
            secret: string;
        };
    };
    responses: {
        /** @description Malformed request: a URL that does not decode (bad percent-encoding), or a malformed header. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description Unexpected failure; the `X-Request-Id` response header identifies the log line. */
        InternalServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description The request body is larger than the operation accepts. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description The request headers are too large (answered by the HTTP server, without a body). */
        RequestHeaderFieldsTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content?: never;
        };
        /** @description The database cannot be reached right now; retry after the `Retry-After` seconds. */
        ServiceUnavailable: {
            headers: {
                /** @description Seconds to wait before trying again. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description The request body is in a media type the operation does not take (see its request body). */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description A path parameter is longer than the router accepts (100 characters). */
        UriTooLong: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    get_log_checkpoint_log_checkpoint_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed checkpoint (UTF-8 text). */
            200: {
                headers: {
                    /** @description `*` */
                    "Access-Control-Allow-Origin"?: string;
                    /** @description `no-cache` */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; charset=utf-8": string;
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The log has not published a checkpoint yet. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    get_log_key_log_key_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The verifier key string and a newline. */
            200: {
                headers: {
                    /** @description `*` */
                    "Access-Control-Allow-Origin"?: string;
                    /** @description `public, max-age=3600` */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; charset=utf-8": string;
                };
            };
            400: components["responses"]["BadRequest"];
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    get_log_tile_log_tile__tile_path__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tile path after `/log/tile/` (slashes included), e.g. `0/x001/234.p/17` or `entries/000`. */
                tile_path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tile or bundle. */
            200: {
                headers: {
                    /** @description `*` */
                    "Access-Control-Allow-Origin"?: string;
                    /** @description `public, max-age=31536000, immutable` or `public, max-age=60` */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Not a tile path, or no such tile (yet). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    issue_token_oauth2_token_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Form fields (RFC 6749 4.4.2). Each field at most once; an empty value counts as omitted; unknown fields are ignored. */
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    /** @description Client authentication in the body (`client_secret_post`), with `client_secret`. Not together with HTTP Basic. */
                    client_id?: string;
                    /**
                     * Format: password
                     * @description Secret of `client_id` (`client_secret_post`).
                     */
                    client_secret?: string;
                    /**
                     * @description Always `client_credentials` (RFC 6749 4.4).
                     * @enum {string}
                     */
                    grant_type: "client_credentials";
                    /** @description Space-separated scopes, a subset of the client's (enterprise-api-access/read, enterprise-api-access/write). Omitted: every scope of the client. */
                    scope?: string;
                };
            };
        };
        responses: {
            /** @description The access token. */
            200: {
                headers: {
                    /** @description Always `no-store` (RFC 6749 5.1). */
                    "Cache-Control"?: "no-store";
                    /** @description Always `no-cache`. */
                    Pragma?: "no-cache";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description RFC 9068 JWT access token (ES256), sent as `Authorization: Bearer <token>`. */
                        access_token: string;
                        /** @description Lifetime of the token in seconds. */
                        expires_in: number;
                        /** @description Granted scopes, present only when they differ from the request (RFC 6749 5.1). */
                        scope?: string;
                        /** @enum {string} */
                        token_type: "Bearer";
                    };
                };
            };
            /** @description `invalid_request` (missing or repeated parameter, not a form, malformed body, two authentication methods), `unsupported_grant_type`, or `invalid_scope` (a scope the client does not have). */
            400: {
                headers: {
                    /** @description Always `no-store` (RFC 6749 5.1). */
                    "Cache-Control"?: "no-store";
                    /** @description Always `no-cache`. */
                    Pragma?: "no-cache";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_request" | "invalid_client" | "unsupported_grant_type" | "invalid_scope" | "server_error" | "temporarily_unavailable";
                        /** @description Human-readable explanation, in the negotiated language. */
                        error_description: string;
                    };
                };
            };
            /** @description `invalid_client`: unknown client, wrong secret, revoked client, or no client authentication. */
            401: {
                headers: {
                    /** @description Always `no-store` (RFC 6749 5.1). */
                    "Cache-Control"?: "no-store";
                    /** @description Always `no-cache`. */
                    Pragma?: "no-cache";
                    /** @description `Basic realm="certdesk"` when the client used HTTP Basic. */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_request" | "invalid_client" | "unsupported_grant_type" | "invalid_scope" | "server_error" | "temporarily_unavailable";
                        /** @description Human-readable explanation, in the negotiated language. */
                        error_description: string;
                    };
                };
            };
            /** @description `invalid_client`: too many failed authentications for this client id or address; retry later. */
            429: {
                headers: {
                    /** @description Always `no-store` (RFC 6749 5.1). */
                    "Cache-Control"?: "no-store";
                    /** @description Always `no-cache`. */
                    Pragma?: "no-cache";
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_request" | "invalid_client" | "unsupported_grant_type" | "invalid_scope" | "server_error" | "temporarily_unavailable";
                        /** @description Human-readable explanation, in the negotiated language. */
                        error_description: string;
                    };
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            /** @description `server_error`: an unexpected failure (nothing internal is disclosed). */
            500: {
                headers: {
                    /** @description Always `no-store` (RFC 6749 5.1). */
                    "Cache-Control"?: "no-store";
                    /** @description Always `no-cache`. */
                    Pragma?: "no-cache";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_request" | "invalid_client" | "unsupported_grant_type" | "invalid_scope" | "server_error" | "temporarily_unavailable";
                        /** @description Human-readable explanation, in the negotiated language. */
                        error_description: string;
                    };
                };
            };
            /** @description `temporarily_unavailable`: the database cannot be reached right now; retry later. */
            503: {
                headers: {
                    /** @description Always `no-store` (RFC 6749 5.1). */
                    "Cache-Control"?: "no-store";
                    /** @description Always `no-cache`. */
                    Pragma?: "no-cache";
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_request" | "invalid_client" | "unsupported_grant_type" | "invalid_scope" | "server_error" | "temporarily_unavailable";
                        /** @description Human-readable explanation, in the negotiated language. */
                        error_description: string;
                    };
                };
            };
        };
    };
    get_certificate_v1_certificates__certificate_id__get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The certificate id (a UUID). Unknown or malformed ids are 404. */
                certificate_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A certificate as anyone with its id sees it (no credentials). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublicCertificate"];
                };
            };
            /** @description Not Modified: the ETag named in If-None-Match still holds. */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /** @description No certificate has this id. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    get_orders_v1_orders_get: {
        parameters: {
            query: {
                /** @description Maximum orders per page. */
                limit?: number;
                /** @description next_page_token of the previous response. */
                page_token?: string;
                /** @description true: OrderPreview items in order_previews; false: full orders in orders. */
                preview?: boolean;
                /** @description Project filter: `All Projects`, `Personal Certificates`, or the id of a project. */
                project_id: string;
            };
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GetOrdersResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not found, or not visible to the caller. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    create_order_v1_orders_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 h replay the first response. */
                "Idempotency-Key"?: string;
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unix seconds as a string. */
                    asset_last_modified_timestamp?: string;
                    /** @description Defaults to the upload's file_name. */
                    asset_name?: string;
                    order_title: string;
                    ordered_by?: null | string;
                    /** @description Project of the order; null (or absent) for a personal order. */
                    project_id?: null | string;
                    tags?: string[];
                    /**
                     * Format: uuid
                     * @description An upload of the caller whose bytes have arrived.
                     */
                    upload_id: string;
                };
                "multipart/form-data": {
                    /** @description Unix seconds as a string. */
                    asset_last_modified_timestamp?: string;
                    /** @description Defaults to the upload's file_name. */
                    asset_name?: string;
                    /**
                     * Format: binary
                     * @description The asset (at most 25 MiB; larger files go through POST /v1/uploads).
                     */
                    file: string;
                    order_title: string;
                    ordered_by?: null | string;
                    /** @description Project of the order; null (or absent) for a personal order. */
                    project_id?: null | string;
                    tags?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or the caller's project role does not allow the write. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not found, or not visible to the caller. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description A request with the same Idempotency-Key is still running. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The multipart file is larger than 25 MiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description A per-user upload limit holds: too many uploads created in the window, or too many (or too many bytes of) uploads not yet used by an order. `Retry-After` says when to try again. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    get_order_v1_orders__order_id__get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The order id. */
                order_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or the caller's project role does not allow the write. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not found, or not visible to the caller. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    get_order_certificate_v1_orders__order_id__certificate_get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The order id. */
                order_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The certificate of an order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Certificate"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not found, or not visible to the caller. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    get_order_certificate_file_v1_orders__order_id__certificate_file_get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The order id. */
                order_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The credentialed file, streamed. */
            200: {
                headers: {
                    /** @description `attachment` with the asset's name (`filename` and RFC 5987 `filename*`). */
                    "Content-Disposition"?: string;
                    /** @description Size of the credentialed file in bytes. */
                    "Content-Length"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                    "image/png": string;
                    "image/tiff": string;
                    "image/webp": string;
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not found, or not visible to the caller. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The file is still being made (with `Retry-After`, 5 s), or the asset cannot carry Content Credentials (the detail says which). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The certificate is revoked: its credentialed file is no longer handed out. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    get_order_history_v1_orders__order_id__history_get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The order id. */
                order_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderHistory"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not found, or not visible to the caller. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    respond_to_order_v1_orders__order_id__responses_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 h replay the first response. */
                "Idempotency-Key"?: string;
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The order id. */
                order_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The explanation for the reviewer. */
                    message: string;
                    /** @description Uploads of evidence (layered files, time-lapses). */
                    upload_ids?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or the caller's project role does not allow the write. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not found, or not visible to the caller. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The order is not `Action Required`, or a request with the same Idempotency-Key is still running. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    get_organization_members_v1_organizations__organization_id__members_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Organization id, as shown on the organization page of the web application. */
                organization_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationMembers"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not found, or not visible to the caller. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    get_projects_v1_projects_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"][];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    get_project_v1_projects__project_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Project id (a UUID, 36 characters). */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not found, or not visible to the caller. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    create_upload_v1_uploads_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 h replay the first response. */
                "Idempotency-Key"?: string;
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Media type the client will send (signed into the upload URL). */
                    content_type: string;
                    /** @description Name of the file (the default `asset_name` of the order). */
                    file_name: string;
                    /** @description Exact number of bytes that will be uploaded (at most 209715200). */
                    size: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC: the URL, and the upload id, are valid until then.
                         */
                        expires_at: string;
                        /** @description Headers to send with the bytes (signed). */
                        upload_headers: {
                            [key: string]: string;
                        };
                        /** Format: uuid */
                        upload_id: string;
                        /** @enum {string} */
                        upload_method: "PUT";
                        /** @description Presigned URL: send the bytes there with `upload_method` and `upload_headers`. */
                        upload_url: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or the caller's project role does not allow the write. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not found, or not visible to the caller. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description A request with the same Idempotency-Key is still running. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description A per-user upload limit holds: too many uploads created in the window, or too many (or too many bytes of) uploads not yet used by an order. `Retry-After` says when to try again. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    list_webhook_endpoints_v1_webhook_endpoints_get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointList"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or its user is not one of the organization's administrators. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No such endpoint (or delivery) in the caller’s organization. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    create_webhook_endpoint_v1_webhook_endpoints_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Free text for administrators. */
                    description?: string;
                    /** @description The events sent to the endpoint. */
                    events: ("order.created" | "order.state_changed" | "certificate.issued" | "certificate.revoked")[];
                    /** @description `https` URL resolving to public addresses only (see docs/webhooks.md, SSRF rules). */
                    url: string;
                };
            };
        };
        responses: {
            /** @description A new endpoint with its signing secret. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or its user is not one of the organization's administrators. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No such endpoint (or delivery) in the caller’s organization. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    get_webhook_endpoint_v1_webhook_endpoints__endpoint_id__get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The endpoint id (a UUID). Unknown ids, and endpoints of other organizations, are 404. */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A webhook endpoint of the organization. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or its user is not one of the organization's administrators. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No such endpoint (or delivery) in the caller’s organization. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    delete_webhook_endpoint_v1_webhook_endpoints__endpoint_id__delete: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The endpoint id (a UUID). Unknown ids, and endpoints of other organizations, are 404. */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or its user is not one of the organization's administrators. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No such endpoint (or delivery) in the caller’s organization. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    update_webhook_endpoint_v1_webhook_endpoints__endpoint_id__patch: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The endpoint id (a UUID). Unknown ids, and endpoints of other organizations, are 404. */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: null | string;
                    /** @description The events sent to the endpoint. */
                    events?: ("order.created" | "order.state_changed" | "certificate.issued" | "certificate.revoked")[];
                    /** @description `disabled`: no event is sent (by a user, or by the service after a 410 or 3 days of failures). */
                    status?: "enabled" | "disabled";
                    /** @description `https` URL resolving to public addresses only (see docs/webhooks.md, SSRF rules). */
                    url?: string;
                };
            };
        };
        responses: {
            /** @description A webhook endpoint of the organization. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or its user is not one of the organization's administrators. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No such endpoint (or delivery) in the caller’s organization. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    list_webhook_deliveries_v1_webhook_endpoints__endpoint_id__deliveries_get: {
        parameters: {
            query?: {
                /** @description Maximum deliveries per page. */
                limit?: number;
                /** @description next_page_token of the previous response. */
                page_token?: string;
            };
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The endpoint id (a UUID). Unknown ids, and endpoints of other organizations, are 404. */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deliveries, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or its user is not one of the organization's administrators. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No such endpoint (or delivery) in the caller’s organization. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    retry_webhook_delivery_v1_webhook_endpoints__endpoint_id__deliveries__delivery_id__retry_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The delivery id (a UUID). */
                delivery_id: string;
                /** @description The endpoint id (a UUID). Unknown ids, and endpoints of other organizations, are 404. */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or its user is not one of the organization's administrators. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No such endpoint (or delivery) in the caller’s organization. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rotate_webhook_endpoint_secret_v1_webhook_endpoints__endpoint_id__rotate_secret_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description Language of human-readable messages (en, fr, de, es, ja). */
                lang?: string;
            };
            path: {
                /** @description The endpoint id (a UUID). Unknown ids, and endpoints of other organizations, are 404. */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookSecret"];
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description Missing, invalid or expired access token. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description The access token does not grant the required scope, or its user is not one of the organization's administrators. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No such endpoint (or delivery) in the caller’s organization. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            431: components["responses"]["RequestHeaderFieldsTooLarge"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
}
