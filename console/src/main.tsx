import "./styles.css";
import type { Hirebridge } from "hirebridge/client";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { AuditPage } from "./pages/audit.js";
import { IntegrationPage } from "./pages/integration.js";
import { IntegrationsPage } from "./pages/integrations.js";
import { PositionPage, PositionsPage } from "./pages/positions.js";
import { ServiceAccountsPage } from "./pages/service-accounts.js";
import { WebhooksPage } from "./pages/webhooks.js";
import { createClient, finishSignIn, loadSettings, startSignIn, tokenServiceAnswers, whoAmI, type Settings } from "./session.js";
import { ErrorNote, Link } from "./ui.js";

type Phase = { kind: "loading" } | { kind: "signed-out"; reason?: string } | { kind: "signed-in" } | { kind: "failed"; error: unknown };

/** Where the page is, whole (path, `?tab=` and the rest of the query, fragment): what a sign-in returns to. */
const here = () => location.pathname + location.search + location.hash;

function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    addEventListener("popstate", update);
    return () => removeEventListener("popstate", update);
  }, []);
  return path;
}

function Page(props: { hb: Hirebridge; path: string; email: string | null }) {
  const { hb, path } = props;
  const integration = /^\/integrations\/([^/]+)$/.exec(path);
  const position = /^\/positions\/([^/]+)$/.exec(path);
  if (integration) return <IntegrationPage hb={hb} id={decodeURIComponent(integration[1]!)} key={integration[1]} />;
  if (path === "/positions") return <PositionsPage hb={hb} />;
  if (path === "/webhooks") return <WebhooksPage hb={hb} />;
  if (path === "/service-accounts") return <ServiceAccountsPage hb={hb} />;
  if (path === "/audit") return <AuditPage hb={hb} />;
  if (position) return <PositionPage hb={hb} id={decodeURIComponent(position[1]!)} key={position[1]} />;
  if (path === "/" || path === "/integrations") return <IntegrationsPage hb={hb} email={props.email} />;
  return (
    <>
      <h1>Page not found</h1>
      <p>
        <Link href="/">Go to the integrations</Link>
      </p>
    </>
  );
}

function App(props: { settings: Settings }) {
  const { settings } = props;
  const [phase, setPhase] = useState<Phase>({ kind: "loading" });
  const [hb] = useState(() => createClient(settings, () => setPhase({ kind: "signed-out", reason: "Your session has ended. Sign in again." })));
  const path = usePath();

  useEffect(() => {
    if (location.pathname !== "/auth/callback") {
      // A page load without tokens (reload, new tab, deep link): sign in silently from the token
      // service's SSO session; it comes back to /auth/callback with a code or login_required.
      void tokenServiceAnswers(settings).then((answers) =>
        answers ? startSignIn(settings, here(), true) : setPhase({ kind: "signed-out" }),
      );
      return;
    }
    finishSignIn(settings, hb, new URLSearchParams(location.search)).then(
      ({ returnTo, signedIn }) => {
        history.replaceState(null, "", returnTo);
        dispatchEvent(new PopStateEvent("popstate"));
        setPhase(signedIn ? { kind: "signed-in" } : { kind: "signed-out" });
      },
      (error: unknown) => {
        history.replaceState(null, "", "/");
        setPhase({ kind: "failed", error });
      },
    );
  }, []);

  const signOut = async () => {
    try {
      await hb.auth.logout(); // ends the session at the token service
    } finally {
      setPhase({ kind: "signed-out", reason: "You are signed out." });
    }
  };

  // After a client-side navigation, keyboard and screen-reader users start at the new page's content.
  const firstPath = useState(path)[0];
  useEffect(() => {
    if (path !== firstPath) document.getElementById("main")?.focus();
  }, [path]);

  const me = phase.kind === "signed-in" ? whoAmI(hb) : null;
  return (
    <>
      <a href="#main" class="skip">
        Skip to the content
      </a>
      <header class="top">
        <span class="brand">Hirebridge console</span>
        {phase.kind === "signed-in" && (
          <nav aria-label="Main">
            <Link href="/" class={path === "/" || path.startsWith("/integrations") ? "current" : ""}>
              Integrations
            </Link>
            <Link href="/positions" class={path.startsWith("/positions") ? "current" : ""}>
              Positions
            </Link>
            <Link href="/webhooks" class={path.startsWith("/webhooks") ? "current" : ""}>
              Webhooks
            </Link>
            <Link href="/service-accounts" class={path.startsWith("/service-accounts") ? "current" : ""}>
              Service accounts
            </Link>
            <Link href="/audit" class={path.startsWith("/audit") ? "current" : ""}>
              Audit log
            </Link>
          </nav>
        )}
        {phase.kind === "signed-in" && (
          <div class="who">
            <span>{me?.name}</span>
            <button type="button" class="secondary small" onClick={signOut}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {phase.kind === "loading" && <p role="status">Loading…</p>}
        {(phase.kind === "signed-out" || phase.kind === "failed") && (
          <section class="panel signin">
            <h1>Sign in</h1>
            {phase.kind === "signed-out" && phase.reason && <p role="status">{phase.reason}</p>}
            {phase.kind === "failed" && <ErrorNote error={phase.error} />}
            <p>Sign in with your Hirebridge account to manage your organisation's integrations, positions and candidates.</p>
            <button type="button" onClick={() => void startSignIn(settings, location.pathname === "/auth/callback" ? "/" : here())}>
              Sign in
            </button>
          </section>
        )}
        {phase.kind === "signed-in" && <Page hb={hb} path={path} email={me?.email ?? null} />}
      </main>
    </>
  );
}

loadSettings().then(
  (settings) => render(<App settings={settings} />, document.getElementById("app")!),
  (err: unknown) => {
    const p = document.createElement("p");
    p.setAttribute("role", "alert");
    p.textContent = err instanceof Error ? err.message : String(err);
    document.getElementById("app")!.append(p);
  },
);

