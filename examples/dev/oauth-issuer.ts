/**
 * A local OAuth 2.1 authorization server for trying `steamharness mcp --http --oauth-issuer`
 * offline (docs/mcp-http.md, "OAuth offline"). DEVELOPMENT ONLY: plain http on 127.0.0.1, one
 * fixed client, keys and tokens in memory until it stops.
 *
 *   node --import tsx examples/dev/oauth-issuer.ts [--port 4455]
 *
 * It prints `oauth-issuer: http://127.0.0.1:<port> …` once it answers. The client `dev-client`
 * (secret `dev-secret`) gets JWT access tokens (RS256) through the client-credentials grant, with
 * the scopes `mcp:read mcp:run` and, as audience, the `resource` it asks for (RFC 8707) — what
 * `--oauth-audience` checks:
 *
 *   curl -s -u dev-client:dev-secret -d grant_type=client_credentials \
 *     -d resource=http://127.0.0.1:3921/mcp -d 'scope=mcp:read mcp:run' http://127.0.0.1:4455/token
 *
 * It uses oidc-provider, a devDependency of this repository (elsewhere: `npm install -D oidc-provider`).
 */
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const CLIENT = { id: "dev-client", secret: "dev-secret", scope: "mcp:read mcp:run" };
const portFlag = process.argv.indexOf("--port");
const port = portFlag >= 0 ? Number(process.argv[portFlag + 1]) : 4455;

// oidc-provider warns on import that it prefers Node 22; it runs on Node 20, so that one line is dropped.
const warn = console.warn;
console.warn = (...args: unknown[]) => void (String(args[0]).includes("Unsupported runtime") || warn(...args));
const Provider = (await import("oidc-provider")).default;
console.warn = warn;

// Its storage in a Map (the library's own in-memory default says on every start that it is for development).
const rows = new Map<string, Record<string, unknown>>();
class MemoryAdapter {
  constructor(private readonly model: string) {}
  async upsert(id: string, payload: Record<string, unknown>) {
    rows.set(`${this.model}:${id}`, payload);
  }
  async find(id: string) {
    return rows.get(`${this.model}:${id}`);
  }
  async findByUid() {
    return undefined;
  }
  async findByUserCode() {
    return undefined;
  }
  async consume() {}
  async destroy(id: string) {
    rows.delete(`${this.model}:${id}`);
  }
  async revokeByGrantId() {}
}

const http = createServer();
await new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve));
const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
const provider = new Provider(issuer, {
  adapter: MemoryAdapter,
  jwks: { keys: [generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" })] },
  clients: [{ client_id: CLIENT.id, client_secret: CLIENT.secret, grant_types: ["client_credentials"], redirect_uris: [], response_types: [], token_endpoint_auth_method: "client_secret_basic", scope: CLIENT.scope }],
  scopes: CLIENT.scope.split(" "),
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx: unknown, resource: string) => ({ scope: CLIENT.scope, audience: resource, accessTokenFormat: "jwt", accessTokenTTL: 3600, jwt: { sign: { alg: "RS256" } } }),
    },
  },
});
http.on("request", provider.callback());
process.stdout.write(`oauth-issuer: ${issuer} (development only; client ${CLIENT.id}, secret ${CLIENT.secret}, scopes ${CLIENT.scope})\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => http.close(() => process.exit(0)));
