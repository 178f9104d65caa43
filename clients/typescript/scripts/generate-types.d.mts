export declare const GENERATED_TYPES_PATH: URL;
/** The text of src/generated/openapi.ts for an OpenAPI document (parsed JSON). */
export declare function generateTypes(document: unknown): Promise<string>;
