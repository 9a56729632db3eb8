/**
 * Everything the sandbox holds, in memory: the integrations (each with its ATS dataset, fields and
 * sync state), the connect links and the activation tokens. Ids derive from the seed, so the demo
 * integration's id is the same on every start with the same SANDBOX_SEED.
 */
import { randomBytes } from "node:crypto";
import type {
  AtsModelName,
  EndUser,
  IntegrationCategory,
  IntegrationStatus,
  QaStatus,
  SetupStatus,
  SyncType,
} from "../../../contracts/upstream/index.js";
import { generateDataset } from "../data/generate.js";
import { Random } from "../data/random.js";
import { findTool, type ToolEntry } from "../data/tools.js";
import { AssessmentData, AttachmentBudget } from "./assessments.js";
import type { Dataset } from "./dataset.js";
import { generateFields, type FieldSet } from "./fields.js";

export type Integration = {
  id: string;
  tool: ToolEntry;
  category: IntegrationCategory;
  status: IntegrationStatus;
  setupStatus: SetupStatus;
  qaStatus: QaStatus;
  endUser: EndUser;
  scopeConfigId: string;
  createdAt: number;
  /** What the dataset was generated from: with the rows changed since, enough to rebuild it (persistence.ts). */
  generation: { seed: number | string; applications: number };
  data: Dataset;
  fields: FieldSet;
  /** Packages published to it and orders placed in it (the assessment channel). */
  assessment: AssessmentData;
  sync: {
    pending: { id: string; type: SyncType; startedAt: number } | null;
    changedSinceSync: Set<AtsModelName>;
    history: { id: string; type: SyncType; state: string; started_at: string; ended_at: string }[];
  };
};

export type LinkGrant = {
  kind: "connect" | "relink";
  endUser: EndUser;
  category: IntegrationCategory;
  /** Pre-selected tool (create-link's integration_tool, or the relinked integration's tool). */
  toolId: string | null;
  integrationId: string | null;
  language: string;
  expiresAt: number;
  usedAt: number | null;
};

const LINK_TTL_MS = 60 * 60 * 1000;
const MAGIC_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const ACTIVATION_TTL_MS = 10 * 60 * 1000;
/** Integrations connected at run time get a small dataset of their own. */
export const CONNECTED_APPLICATIONS = 25;

export type CreateIntegrationInput = {
  toolId: string;
  category?: IntegrationCategory;
  endUser: EndUser;
  applications?: number;
  seed?: number | string;
};

/** An integration's own fields, without its generated data (what persistence.ts stores). */
export type IntegrationHead = Omit<Integration, "tool" | "data" | "fields" | "assessment" | "sync"> & { toolId: string };

/** Categories whose integrations hold jobs and applications (an assessment order names an application). */
const WITH_APPLICATIONS: readonly IntegrationCategory[] = ["ATS", "ASSESSMENT"];

export class SandboxStore {
  readonly integrations = new Map<string, Integration>();
  readonly #links = new Map<string, LinkGrant>();
  readonly #activations = new Map<string, { integrationId: string; expiresAt: number }>();
  /** Attachment bytes of every integration's assessment results, bounded together. */
  readonly attachmentBudget = new AttachmentBudget();
  #created = 0;

  constructor(
    private readonly seed: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Creates an integration with generated data; its id is `<tool>:<24-char id>`, derived from the seed. */
  createIntegration(input: CreateIntegrationInput): Integration {
    const tool = findTool(input.toolId, input.category);
    if (!tool) throw new Error(`unknown tool ${input.toolId}`);
    const n = this.#created++;
    const seed = input.seed ?? (n === 0 ? this.seed : `${this.seed}:${n}`);
    const rnd = new Random(`${this.seed}:integration:${n}`);
    return this.restoreIntegration({
      id: `${tool.id}:${rnd.id()}`,
      toolId: tool.id,
      category: tool.category,
      status: "ACTIVE",
      setupStatus: "COMPLETED",
      qaStatus: "PASSED",
      endUser: input.endUser,
      scopeConfigId: rnd.id(),
      createdAt: this.clock(),
      // HRIS integrations hold no ATS data. ASSESSMENT ones hold jobs and applications (the ATS's own
      // records an order is placed for) but, as upstream, answer MODEL_NOT_AVAILABLE on /ats/*.
      generation: {
        seed,
        applications: WITH_APPLICATIONS.includes(tool.category) ? (input.applications ?? CONNECTED_APPLICATIONS) : 0,
      },
    });
  }

  /** Builds an integration from its own fields, regenerating its data (same seed, same rows). */
  restoreIntegration(head: IntegrationHead): Integration {
    const tool = findTool(head.toolId, head.category);
    if (!tool) throw new Error(`unknown tool ${head.toolId}`);
    const { toolId: _toolId, ...own } = head;
    const integration: Integration = {
      ...own,
      tool,
      data: generateDataset({ seed: head.generation.seed, applications: head.generation.applications, clock: this.clock }),
      fields: generateFields(String(head.generation.seed), head.createdAt),
      assessment: new AssessmentData(this.attachmentBudget, this.clock),
      sync: { pending: null, changedSinceSync: new Set(), history: [] },
    };
    this.integrations.set(integration.id, integration);
    return integration;
  }

  /** How many integrations were ever created (ids and seeds of new ones derive from it). */
  get createdCount(): number {
    return this.#created;
  }

  set createdCount(n: number) {
    this.#created = n;
  }

  /** Connect links and activation tokens, for persistence. */
  grants(): { links: [string, LinkGrant][]; activations: [string, { integrationId: string; expiresAt: number }][] } {
    return { links: [...this.#links], activations: [...this.#activations] };
  }

  restoreGrants(saved: ReturnType<SandboxStore["grants"]>): void {
    for (const [k, v] of saved.links) this.#links.set(k, v);
    for (const [k, v] of saved.activations) this.#activations.set(k, v);
  }

  get(id: string): Integration | undefined {
    return this.integrations.get(id);
  }

  delete(id: string): Integration | undefined {
    const integration = this.integrations.get(id);
    if (integration) this.integrations.delete(id);
    return integration;
  }

  createLink(grant: Omit<LinkGrant, "expiresAt" | "usedAt">, linkType: "EMBEDDED" | "MAGIC_LINK" = "EMBEDDED"): string {
    const token = randomBytes(24).toString("base64url");
    this.#links.set(token, {
      ...grant,
      expiresAt: this.clock() + (linkType === "MAGIC_LINK" ? MAGIC_LINK_TTL_MS : LINK_TTL_MS),
      usedAt: null,
    });
    return token;
  }

  /** The grant of a usable link, or why it is not usable. */
  link(token: string): { grant: LinkGrant } | { error: "unknown" | "expired" | "used" } {
    const grant = this.#links.get(token);
    if (!grant) return { error: "unknown" };
    if (grant.usedAt !== null) return { error: "used" };
    if (grant.expiresAt <= this.clock()) return { error: "expired" };
    return { grant };
  }

  markLinkUsed(token: string): void {
    const grant = this.#links.get(token);
    if (grant) grant.usedAt = this.clock();
  }

  /** A short-lived token the front end hands to the backend, exchanged via integration-by-token. */
  issueActivationToken(integrationId: string): string {
    const token = randomBytes(24).toString("base64url");
    this.#activations.set(token, { integrationId, expiresAt: this.clock() + ACTIVATION_TTL_MS });
    return token;
  }

  integrationByActivationToken(token: string): Integration | undefined {
    const entry = this.#activations.get(token);
    if (!entry || entry.expiresAt <= this.clock()) return undefined;
    return this.integrations.get(entry.integrationId);
  }
}
