package commands

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/host"
)

// storeFlags are where the store is: a data directory or a database URL.
type storeFlags struct{ data, db string }

func (s *storeFlags) bind(c *cobra.Command) {
	c.Flags().StringVar(&s.data, "data", "", "the SQLite store's directory (default: $XDG_DATA_HOME/aw/host, else ~/.local/share/aw/host)")
	c.Flags().StringVar(&s.db, "db", "", "a PostgreSQL URL (postgres://user@host:port/db) instead of SQLite; several aw serve may share one (put the password in PGPASSWORD or ~/.pgpass, not the URL)")
}

func (a *app) openStore(ctx context.Context, s storeFlags) (*host.DB, error) {
	if s.data != "" && s.db != "" {
		return nil, envelope.Errorf(envelope.InvalidInput, "give --data or --db, not both")
	}
	dir := s.data
	if dir == "" && s.db == "" {
		dir = host.DefaultDataDir(a.io.Getenv)
	}
	db, err := host.Open(ctx, dir, s.db)
	if err != nil {
		return nil, envelope.Errorf(envelope.InvalidInput, "cannot open the store: %v", err)
	}
	return db, nil
}

func (a *app) serveCmd() *cobra.Command {
	var where storeFlags
	var listen, cert, key string
	var secretEnv, secretFile []string
	var poll time.Duration
	var keepEvents int64
	limits := host.DefaultLimits
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the host.workspace API: versioned, tenant-isolated ground-truth files for agents",
		Long: `Serve the host.workspace API over HTTP until interrupted (SIGINT or SIGTERM).
It prints one envelope when it is ready (data.url is the address to give
aw host and agents), and nothing more.

Files are named, versioned and scoped to the {tenant, workspace} of the
bearer token a request carries: no request reads, lists, writes or streams
another's files. Tokens are made by a human with aw serve token add; the
store keeps only their SHA-256.

The store is SQLite in --data DIR by default, or PostgreSQL with --db URL,
where several aw serve processes on one database stay consistent (a write
compares and swaps the version in one statement; every replica's event
streams see every write).

Before a write is stored, the values of --secret-env variables and
--secret-file files, and anything shaped like a key or token, are replaced
by [REDACTED:<id>].

It listens on 127.0.0.1 by default; any other address needs --tls-cert and
--tls-key.

Endpoints: GET /v1/host/capabilities, GET /v1/openapi.json,
GET /v1/host/workspace/files[?prefix=P&snapshot=ID],
GET|PUT|DELETE /v1/host/workspace/files/{path} (?version=N, ?snapshot=ID,
If-Match), GET /v1/host/workspace/history/{path},
GET /v1/host/workspace/events (Server-Sent Events, Last-Event-ID),
POST /v1/host/runs (a run's read snapshot).

Examples:
  aw serve --data ~/aw-host
  aw serve --db postgres://aw@db.internal:5432/aw --listen 0.0.0.0:7370 --tls-cert host.crt --tls-key host.key
  aw serve --secret-env OPENAI_API_KEY --max-file-bytes 262144`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fail := func(err error) error { a.emit(envelope.Fail("serve.run", err)); return nil }
			if (cert == "") != (key == "") {
				return fail(envelope.Errorf(envelope.InvalidInput, "give --tls-cert and --tls-key together"))
			}
			if err := loopbackOrTLS(listen, cert != ""); err != nil {
				return fail(err)
			}
			if limits.MaxFileBytes < 1 || limits.MaxFiles < 1 || limits.MaxVersions < 1 {
				return fail(envelope.Errorf(envelope.InvalidInput, "--max-file-bytes, --max-files and --max-versions must each be at least 1"))
			}
			var secrets []host.Secret
			for _, name := range secretEnv {
				s, err := host.SecretFromEnv(name, a.io.Getenv)
				if err != nil {
					return fail(envelope.Errorf(envelope.InvalidInput, "%v", err))
				}
				secrets = append(secrets, s)
			}
			for _, path := range secretFile {
				s, err := host.SecretFromFile(path)
				if err != nil {
					return fail(envelope.Errorf(envelope.InvalidInput, "%v", err))
				}
				secrets = append(secrets, s)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			db, err := a.openStore(ctx, where)
			if err != nil {
				return fail(err)
			}
			defer db.Close()
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fail(envelope.Errorf(envelope.InvalidInput, "cannot listen on %s: %v", listen, err))
			}
			scheme := "http"
			if cert != "" {
				scheme = "https"
			}
			srv := host.NewServer(db, limits, secrets)
			if poll > 0 {
				srv.Poll = poll
			}
			if keepEvents > 0 {
				srv.KeepEvents(keepEvents)
			}
			url := scheme + "://" + ln.Addr().String()
			data := map[string]any{"url": url, "backend": db.Backend(), "pid": syscall.Getpid(), "capabilities": srv.Capabilities()["capabilities"]}
			env := envelope.New("serve.run", fmt.Sprintf("serving host.workspace at %s (%s); stop with Ctrl-C or SIGTERM", url, db.Backend()), data)
			env.Fact("host URL: %s", url)
			a.emit(env)
			if f, ok := a.io.Out.(interface{ Sync() error }); ok {
				f.Sync()
			}
			if err := srv.Serve(ctx, ln, cert, key); err != nil && !errors.Is(err, context.Canceled) {
				a.warn("serve: %v", err)
				a.exitCode = ExitFailed
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:7370", "address to listen on (port 0: any free port)")
	where.bind(cmd)
	f.StringVar(&cert, "tls-cert", "", "TLS certificate file (needed to listen on anything but loopback)")
	f.StringVar(&key, "tls-key", "", "TLS private key file")
	f.IntVar(&limits.MaxFileBytes, "max-file-bytes", limits.MaxFileBytes, "largest file, in bytes after redaction")
	f.IntVar(&limits.MaxFiles, "max-files", limits.MaxFiles, "most live files a workspace holds")
	f.IntVar(&limits.MaxVersions, "max-versions", limits.MaxVersions, "earlier versions kept per file besides the head (a run snapshot keeps what it reads)")
	f.StringArrayVar(&secretEnv, "secret-env", nil, "an environment variable whose value is redacted from every write as [REDACTED:env.NAME] (repeatable)")
	f.StringArrayVar(&secretFile, "secret-file", nil, "a file whose content is redacted from every write as [REDACTED:file.NAME] (repeatable)")
	// Tests lengthen it to show that wake-ups, not polling, deliver events.
	f.DurationVar(&poll, "event-poll", 0, "how often event streams re-read without a wake-up (default 2s)")
	f.MarkHidden("event-poll")
	// Tests shorten it to reach a resume from a pruned event id.
	f.Int64Var(&keepEvents, "keep-events", 0, "events each workspace keeps for resuming streams (default 10000)")
	f.MarkHidden("keep-events")
	cmd.AddCommand(a.serveTokenCmd())
	return cmd
}

// loopbackOrTLS refuses plain HTTP on anything but a loopback address: the
// bearer tokens would cross the network in the clear.
func loopbackOrTLS(addr string, tls bool) error {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return envelope.Errorf(envelope.InvalidInput, "--listen %q is not HOST:PORT", addr)
	}
	if tls || h == "localhost" {
		return nil
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return nil
	}
	return envelope.Errorf(envelope.InvalidInput, "--listen %s is not a loopback address: give --tls-cert and --tls-key to serve beyond this machine (tokens must not cross the network in the clear)", addr)
}

func (a *app) serveTokenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Manage the server's bearer tokens (human verbs)",
		Long: `Each token speaks for exactly one {tenant, workspace}. add prints the token
once; the store keeps only its SHA-256. Human verbs: in your own terminal,
or with AW_APPROVER_TOKEN matching your token file.`,
	}
	var where storeFlags
	var tenant, workspace, name string
	human := func(verb string) error {
		ws, err := a.openWorkspace()
		if err != nil {
			return err
		}
		return gate.RequireHuman(ws, verb)
	}
	add := &cobra.Command{
		Use:   "add --tenant T --workspace W [--name N]",
		Short: "Make a token for one {tenant, workspace} and print it once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := human("aw serve token add"); err != nil {
				a.emit(envelope.Fail("serve.token_add", err))
				return nil
			}
			if tenant == "" || workspace == "" {
				a.emit(envelope.Fail("serve.token_add", envelope.Errorf(envelope.InvalidInput, "give --tenant and --workspace: the token speaks for exactly that pair")))
				return nil
			}
			db, err := a.openStore(cmd.Context(), where)
			if err != nil {
				a.emit(envelope.Fail("serve.token_add", err))
				return nil
			}
			defer db.Close()
			t, secret, err := db.AddToken(cmd.Context(), tenant, workspace, name)
			if err != nil {
				a.emit(envelope.Fail("serve.token_add", envelope.Errorf(envelope.InvalidInput, "%v", err)))
				return nil
			}
			env := envelope.New("serve.token_add", fmt.Sprintf("token %s for %s/%s (shown once: store it now)", t.ID, t.Tenant, t.Workspace), map[string]any{"token": secret, "record": t})
			env.Retention.Importance = envelope.High
			env.Omit("data.token")
			a.emit(env)
			return nil
		},
	}
	add.Flags().StringVar(&tenant, "tenant", "", "the tenant the token speaks for")
	add.Flags().StringVar(&workspace, "workspace", "", "the workspace the token speaks for")
	add.Flags().StringVar(&name, "name", "", "who writes with it, as workspace.updated names them (default: the token id)")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the tokens (ids, principals, names; never the tokens)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := human("aw serve token list"); err != nil {
				a.emit(envelope.Fail("serve.token_list", err))
				return nil
			}
			db, err := a.openStore(cmd.Context(), where)
			if err != nil {
				a.emit(envelope.Fail("serve.token_list", err))
				return nil
			}
			defer db.Close()
			ts, err := db.Tokens(cmd.Context())
			if err != nil {
				a.emit(envelope.Fail("serve.token_list", err))
				return nil
			}
			a.emit(envelope.New("serve.token_list", fmt.Sprintf("%d tokens", len(ts)), map[string]any{"tokens": ts}))
			return nil
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke ID|NAME",
		Short: "Revoke a token: requests with it are refused from now on, on every replica",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := human("aw serve token revoke"); err != nil {
				a.emit(envelope.Fail("serve.token_revoke", err))
				return nil
			}
			db, err := a.openStore(cmd.Context(), where)
			if err != nil {
				a.emit(envelope.Fail("serve.token_revoke", err))
				return nil
			}
			defer db.Close()
			t, now, err := db.RevokeToken(cmd.Context(), args[0])
			if errors.Is(err, host.ErrNoToken) {
				a.emit(envelope.Fail("serve.token_revoke", envelope.Errorf(envelope.NotFound, "no token has id or name %q: see aw serve token list", args[0])))
				return nil
			}
			if err != nil {
				a.emit(envelope.Fail("serve.token_revoke", err))
				return nil
			}
			summary := "revoked token " + t.ID
			if !now {
				summary = "token " + t.ID + " was already revoked at " + t.RevokedAt
			}
			a.emit(envelope.New("serve.token_revoke", summary, map[string]any{"record": t, "changed": now}))
			return nil
		},
	}
	for _, c := range []*cobra.Command{add, list, revoke} {
		where.bind(c)
		cmd.AddCommand(c)
	}
	return cmd
}
