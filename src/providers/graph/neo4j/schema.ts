// The graph's schema as LangChain's Neo4jGraph reads and words it for the Cypher prompt: node
// properties, relationship properties and relationships from apoc.meta.data() (Bloom's and the
// __Entity__ labels left out), formatted as "Node properties are the following: …"; with the
// enhanced schema, each label's and type's properties are sampled (apoc.meta.graphSample() counts
// decide between every node and the first 5) for example values, ranges and list sizes.

export const BASE_ENTITY_LABEL = "__Entity__";
const DISTINCT_VALUE_LIMIT = 10;
const LIST_LIMIT = 128;
export const EXHAUSTIVE_SEARCH_LIMIT = 10_000;
export const EXCLUDED_LABELS = ["Bloom_Perspective", "Bloom_Scene"];
export const EXCLUDED_RELS = ["Bloom_HAS_SCENE"];

const META = "CALL apoc.meta.data()\nYIELD label, other, elementType, type, property\n";

export const NODE_PROPERTIES_QUERY =
  `${META}WHERE NOT type = "RELATIONSHIP" AND elementType = "node"\n  AND NOT label IN $EXCLUDED_LABELS\n` +
  "WITH label AS nodeLabels, collect({property:property, type:type}) AS properties\n" +
  "RETURN {labels: nodeLabels, properties: properties} AS output";

export const REL_PROPERTIES_QUERY =
  `${META}WHERE NOT type = "RELATIONSHIP" AND elementType = "relationship"\n  AND NOT label IN $EXCLUDED_LABELS\n` +
  "WITH label AS nodeLabels, collect({property:property, type:type}) AS properties\n" +
  "RETURN {type: nodeLabels, properties: properties} AS output";

export const REL_QUERY =
  `${META}WHERE type = "RELATIONSHIP" AND elementType = "node"\nUNWIND other AS other_node\n` +
  "WITH * WHERE NOT label IN $EXCLUDED_LABELS\n    AND NOT other_node IN $EXCLUDED_LABELS\n" +
  "RETURN {start: label, type: property, end: toString(other_node)} AS output";

export const SAMPLE_QUERY =
  "CALL apoc.meta.graphSample() YIELD nodes, relationships RETURN nodes, " +
  "[rel in relationships | {name: apoc.any.property(rel, 'type'), count: apoc.any.property(rel, 'count')}] AS relationships";

/** One property as apoc.meta.data names it, with what the enhanced schema found. */
export interface PropertyInfo {
  property: string;
  type: string;
  values?: string[];
  distinct_count?: number | string;
  min?: string;
  max?: string;
  min_size?: number | string;
  max_size?: number | string;
}

export interface StructuredSchema {
  nodeProps: Record<string, PropertyInfo[]>;
  relProps: Record<string, PropertyInfo[]>;
  relationships: Array<{ start: string; type: string; end: string }>;
}

const NUMERIC = ["INTEGER", "FLOAT", "DATE", "DATE_TIME", "LOCAL_DATE_TIME"];
const SKIPPED = ["BOOLEAN", "POINT", "DURATION"];
const n = (v: unknown) => Number(v);
// LangChain's: the first line break and carriage return only.
const clean = (s: unknown) => String(s).replace("\n", " ").replace("\r", " ");
const moreThanLimit = (count: unknown = 11) => n(count) > DISTINCT_VALUE_LIMIT;

function enhancedLines(props: PropertyInfo[], relationship: boolean): string[] {
  const lines: string[] = [];
  for (const p of props) {
    let example = "";
    const values = p.values ?? [];
    if (p.type === "STRING") {
      if (values.length > 0)
        example = moreThanLimit(p.distinct_count) ? `Example: ${clean(values[0])}` : `Available options: ${values.map(clean).join(", ")}`;
    } else if (NUMERIC.includes(p.type)) {
      if (relationship ? p.min : p.min !== undefined) example = `Min: ${p.min}, Max: ${p.max}`;
      else if (relationship ? p.values : values.length > 0) example = `Example: ${values[0]}`;
    } else if (p.type === "LIST") {
      if (relationship ? n(p.min_size) > LIST_LIMIT : !p.min_size || n(p.min_size) > LIST_LIMIT) continue;
      example = `Min Size: ${p.min_size}, Max Size: ${p.max_size}`;
    }
    lines.push(`  - \`${p.property}\`: ${p.type} ${example}`);
  }
  return lines;
}

/** The schema as the Cypher prompt's {schema}, word for word as LangChain writes it. */
export function formatSchema(schema: StructuredSchema, enhanced: boolean): string {
  let nodeProps: string[];
  let relProps: string[];
  if (enhanced) {
    nodeProps = Object.entries(schema.nodeProps).flatMap(([label, props]) => [`- **${label}**`, ...enhancedLines(props, false)]);
    relProps = Object.entries(schema.relProps).flatMap(([type, props]) => [`- **${type}**`, ...enhancedLines(props, true)]);
  } else {
    nodeProps = Object.entries(schema.nodeProps).map(
      ([label, props]) => `${label} {${props.map((p) => `${p.property}: ${p.type}`).join(", ")}}`,
    );
    relProps = Object.entries(schema.relProps).map(
      ([type, props]) => `${type} {${props.map((p) => `${p.property}: ${p.type} `).join(", ")} } `,
    );
  }
  const rels = schema.relationships.map((r) => `(: ${r.start}) - [: ${r.type}] -> (:${r.end})`);
  return [
    "Node properties are the following:",
    nodeProps.join(", "),
    "Relationship properties are the following:",
    relProps.join(", "),
    "The relationships are the following:",
    rels.join(", "),
  ].join("\n");
}

const q = (name: string) => `\`${name.replace(/`/g, "``")}\``;

/**
 * The query sampling one label's (or relationship type's) properties: over every element when there
 * are few (`exhaustive`), else over the first 5. Answers one row whose `output` maps each property to
 * what was found. (LangChain's non-exhaustive branch looks up range indexes by a field SHOW INDEXES
 * does not answer, so it always samples; so does this.)
 */
export function enhancedSchemaCypher(name: string, props: PropertyInfo[], exhaustive: boolean, relationship: boolean): string {
  let match = relationship ? `MATCH ()-[n:${q(name)}]->()` : `MATCH (n:${q(name)})`;
  if (!exhaustive) match += " WITH n LIMIT 5";
  const withs: string[] = [];
  const output: string[] = [];
  for (const { property, type } of props) {
    if (SKIPPED.includes(type)) continue;
    const p = q(property);
    const alias = (suffix: string) => q(`${property}_${suffix}`);
    let ret: string;
    if (type === "STRING") {
      withs.push(`collect(distinct substring(n.${p}, 0, 50)) AS ${alias("values")}`);
      ret = exhaustive
        ? `values: ${alias("values")}[..${DISTINCT_VALUE_LIMIT}], distinct_count: size(${alias("values")})`
        : `values: ${alias("values")}`;
    } else if (NUMERIC.includes(type)) {
      withs.push(`min(n.${p}) AS ${alias("min")}`, `max(n.${p}) AS ${alias("max")}`, `count(distinct n.${p}) AS ${alias("distinct")}`);
      ret = `min: toString(${alias("min")}), max: toString(${alias("max")}), distinct_count: ${alias("distinct")}`;
    } else if (type === "LIST") {
      withs.push(`min(size(n.${p})) AS ${alias("size_min")}, max(size(n.${p})) AS ${alias("size_max")}`);
      ret = `min_size: ${alias("size_min")}, max_size: ${alias("size_max")}`;
    } else continue;
    output.push(`${p}: {${ret}}`);
  }
  return [match, `WITH ${withs.join(", ")}`, `RETURN {${output.join(", ")}} AS output`].join("\n");
}
