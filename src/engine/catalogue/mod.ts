/**
 * The catalogue a model discovers tools from: declarations, the search
 * index, descriptions with observed output shapes (per namespace), uniform
 * connector handles, and the compact description a model sees.
 *
 * @module
 */
export { Catalogue, type Description } from "./catalogue.ts";
export { describeForModel, MAX_LISTED_CONNECTORS } from "./model_prompt.ts";
