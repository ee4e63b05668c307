package host

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"       // database/sql driver "pgx"
	_ "github.com/ncruces/go-sqlite3/driver" // database/sql driver "sqlite3"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the store's database: SQLite in a data directory, or PostgreSQL.
// Every statement is written once with ? placeholders; q rewrites them for
// PostgreSQL.
type DB struct {
	sql      *sql.DB
	postgres bool
	url      string // the PostgreSQL URL (the listener opens its own connection)
	where    string // what to tell a human: the data directory or the host of the URL
}

// Open opens (creating and migrating) the store. dbURL, when set, is a
// postgres:// URL; otherwise dataDir holds host.db.
func Open(ctx context.Context, dataDir, dbURL string) (*DB, error) {
	d := &DB{}
	switch {
	case dbURL != "":
		u, err := url.Parse(dbURL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return nil, fmt.Errorf("--db %q is not a postgres:// URL", redactURL(dbURL))
		}
		db, err := sql.Open("pgx", dbURL)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(32)
		db.SetMaxIdleConns(32)
		d.sql, d.postgres, d.url, d.where = db, true, dbURL, redactURL(dbURL)
	default:
		if dataDir == "" {
			return nil, fmt.Errorf("no data directory: pass --data DIR or --db postgres://...")
		}
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, err
		}
		// WAL with synchronous=FULL: a write is on disk before it is
		// acknowledged. Writers take the lock at BEGIN (immediate), so two
		// writers never deadlock upgrading a read lock; busy_timeout makes
		// the second wait instead of failing.
		dsn := "file:" + filepath.ToSlash(filepath.Join(dataDir, "host.db")) +
			"?_txlock=immediate&_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)&_pragma=synchronous(full)&_pragma=foreign_keys(on)"
		db, err := sql.Open("sqlite3", dsn)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(16)
		db.SetMaxIdleConns(16)
		db.SetConnMaxIdleTime(0)
		d.sql, d.where = db, dataDir
	}
	if err := d.ping(ctx); err != nil {
		d.sql.Close()
		return nil, err
	}
	if !d.postgres {
		// The files are the tenants' ground truth: readable by the
		// server's user alone (the WAL and shm files take the same mode).
		if err := os.Chmod(filepath.Join(dataDir, "host.db"), 0o600); err != nil {
			d.sql.Close()
			return nil, err
		}
	}
	if err := d.migrate(ctx); err != nil {
		d.sql.Close()
		return nil, fmt.Errorf("migrating the store at %s: %w", d.where, err)
	}
	return d, nil
}

func (d *DB) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := d.sql.PingContext(ctx); err != nil {
		return fmt.Errorf("cannot reach the store at %s: %v", d.where, err)
	}
	return nil
}

// Close closes the database.
func (d *DB) Close() error { return d.sql.Close() }

// Backend names the database kind: sqlite or postgres.
func (d *DB) Backend() string {
	if d.postgres {
		return "postgres"
	}
	return "sqlite"
}

// q rewrites ? placeholders as $1, $2, ... for PostgreSQL. Statements
// never hold a literal "?".
func (d *DB) q(query string) string {
	if !d.postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// migrate applies the embedded migrations not yet applied, in order, each
// in its own transaction with its record. On PostgreSQL an advisory lock
// makes replicas starting together apply each one once.
func (d *DB) migrate(ctx context.Context) error {
	if _, err := d.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS aw_schema (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return err
	}
	entries, err := migrations.ReadDir("migrations")
	if err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, name := range names {
		version, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s has no numeric prefix", name)
		}
		body, _ := migrations.ReadFile("migrations/" + name)
		if err := d.apply(ctx, version, string(body)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func (d *DB) apply(ctx context.Context, version int, body string) error {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if d.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(5900590059)`); err != nil {
			return err
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, d.q(`SELECT COUNT(*) FROM aw_schema WHERE version = ?`), version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO aw_schema (version, applied_at) VALUES (?, ?)`), version, time.Now().UnixMicro()); err != nil {
		return err
	}
	return tx.Commit()
}

// redactURL drops a password from a database URL before it is shown.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	return u.String()
}

// DefaultDataDir is $XDG_DATA_HOME/aw/host, else ~/.local/share/aw/host.
func DefaultDataDir(getenv func(string) string) string {
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "aw", "host")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "share", "aw", "host")
	}
	return ""
}
