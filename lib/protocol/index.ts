export * from "./frames";
export * from "./json";
export * from "./validate";
export * from "./live";
export * from "./replies";
export * from "./bounds";
export * from "./wire-json";
