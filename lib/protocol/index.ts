export * from "./frames";
export * from "./json";
export * from "./validate";
export * from "./live";
