// Package edit owns workspace_edit: all-or-nothing file transactions that an
// agent previews, a human may approve, and that commit and roll back as a
// whole. A transaction lives in .agentic/transactions/<tx_id>/:
// transaction.json, changes.diff, review.md, and blobs/<sha256> holding every
// distinct content the files had before and will have after, so commit writes
// exactly what was previewed and rollback restores exactly what was there
// (persist.go). Older transactions keep before/<n> and after/<n> instead and
// are still read. It never prints; every gated action goes through
// engine/gate.
package edit

import (
	"time"
)

// Op is one operation as a caller sends it (snake_case JSON).
type Op struct {
	Type             string  `json:"type" doc:"the operation: create a new file, rewrite a whole file, replace exact text, splice lines, copy or move a file, delete a file, mkdir a directory (with parents)" enum:"create,rewrite,replace,splice,copy,move,delete,mkdir"`
	Path             string  `json:"path,omitempty" doc:"the file (or for mkdir the directory), relative to the workspace root (create, rewrite, replace, splice, delete, mkdir)"`
	Content          *string `json:"content,omitempty" doc:"the text: the whole file for create and rewrite (required; empty string for an empty file), the lines to insert for splice. Exactly as the file should read: no line-number gutter"`
	Overwrite        bool    `json:"overwrite,omitempty" doc:"create, copy, move: replace an existing target (destructive); default false: an existing target is refused"`
	CreateIfMissing  bool    `json:"create_if_missing,omitempty" doc:"rewrite: create the file when it does not exist; default false: a missing file is refused"`
	Search           string  `json:"search,omitempty" doc:"replace: the exact text to find (whitespace and line ends as read shows them; no regex), required and not empty"`
	Replacement      *string `json:"replacement,omitempty" doc:"replace: the text put in its place (required; empty string deletes the text)"`
	ExpectedMatches  *int    `json:"expected_matches,omitempty" doc:"replace: how many times search must match, at least 1; default 1 (a search matching more often is refused). Excludes replace_all"`
	ReplaceAll       bool    `json:"replace_all,omitempty" doc:"replace: replace every occurrence, however many; default false"`
	StartLine        int     `json:"start_line,omitempty" doc:"splice: the first line to delete or insert before, 1-based, 1 to the line count plus one (to append)"`
	DeleteCount      int     `json:"delete_count,omitempty" doc:"splice: lines deleted from start_line; default 0 (insert only)"`
	From             string  `json:"from,omitempty" doc:"copy, move: the source file, relative to the workspace root"`
	To               string  `json:"to,omitempty" doc:"copy, move: the target file, relative to the workspace root"`
	IgnoreMissing    bool    `json:"ignore_missing,omitempty" doc:"delete: a missing file is not an error; default false"`
	ExpectSHA256     string  `json:"expect_sha256,omitempty" doc:"the sha256 the file (for copy and move, the source) must have now, as read or stat reported it; a file changed since is refused as stale. Default: not checked"`
	AllowLineNumbers bool    `json:"allow_line_numbers,omitempty" doc:"accept text that looks like a read's line-number gutter (12 | ...); default false: such text is refused so a copied gutter never lands in the file"`
}

// Replacement is what one replace operation (1-based) matched.
type Replacement struct {
	Operation int    `json:"operation"`
	Path      string `json:"path"`
	Count     int    `json:"count"`
}

// PreviewRequest is preview and apply: the operations, in order.
type PreviewRequest struct {
	Operations     []Op   `json:"operations" doc:"the operations, applied in order to a virtual copy of the files, 1 to 1000; all succeed or nothing is written. Each file at most 64 MiB, the whole transaction at most the edit.maxTransactionBytes setting"`
	IdempotencyKey string `json:"idempotency_key,omitempty" doc:"a key of your choice: repeating a call with the same key and operations returns the first transaction instead of a new one (the same key with other operations is refused)"`
}

// TxRequest names a transaction (commit, show).
type TxRequest struct {
	TransactionID string `json:"transaction_id" doc:"the tx_ id a preview or apply returned (a unique prefix works)"`
}

// RollbackRequest names a transaction; force restores over later changes.
type RollbackRequest struct {
	TransactionID string `json:"transaction_id" doc:"the tx_ id of an applied transaction (a unique prefix works)"`
	Force         bool   `json:"force,omitempty" doc:"restore even over changes made to its files since the commit (destructive); default false: a file changed since is refused"`
}

// ListRequest bounds the listing.
type ListRequest struct {
	Limit int `json:"limit,omitempty" doc:"most transactions returned, newest first, 1 to 100; default 20"`
}

// Transaction statuses.
const (
	Planned     = "planned"
	Committing  = "committing" // only while a commit runs; recovery ends it
	Applied     = "applied"
	RollingBack = "rolling_back"
	RolledBack  = "rolled_back"
	Failed      = "failed"
)

// Transaction is transaction.json. inspect changes reads id, status, files
// and directories from it.
type Transaction struct {
	ID                 string        `json:"id"`
	Status             string        `json:"status"`
	Operations         []Op          `json:"operations"`
	Files              []FileChange  `json:"files"`
	Directories        []DirChange   `json:"directories"`
	Destructive        bool          `json:"destructive"`
	DestructiveReasons []string      `json:"destructiveReasons"`
	Replacements       []Replacement `json:"replacements,omitempty"`
	IdempotencyKey     string        `json:"idempotencyKey,omitempty"`
	OpsHash            string        `json:"opsHash"`
	CommitHash         string        `json:"commitHash"`
	Error              string        `json:"error,omitempty"`
	Note               string        `json:"note,omitempty"`
	CreatedAt          time.Time     `json:"createdAt"`
	CommittedAt        time.Time     `json:"committedAt,omitzero"`
	RolledBackAt       time.Time     `json:"rolledBackAt,omitzero"`
	// CreatedDirs are directories a commit created (all levels), deepest
	// last; a failed commit or a recovery removes them while empty.
	CreatedDirs []string `json:"createdDirs,omitempty"`
	// RemoveDirs are directories the commit removes once the files are
	// written, deepest first and each only while empty (aw command undo of
	// a job that made them); rollback and recovery make them again.
	RemoveDirs []string `json:"removeDirs,omitempty"`
}

// FileChange is the net effect on one file. Its contents live in
// blobs/<BeforeSHA256> and blobs/<AfterSHA256> of the transaction directory
// (before/<n> and after/<n> in older ones, n being the index here).
type FileChange struct {
	Path          string `json:"path"`
	Change        string `json:"change"` // create, modify, delete
	ExistedBefore bool   `json:"existedBefore"`
	BeforeSHA256  string `json:"beforeSha256,omitempty"`
	AfterSHA256   string `json:"afterSha256,omitempty"`
	Mode          uint32 `json:"mode"`       // after the commit
	BeforeMode    uint32 `json:"beforeMode"` // restored by rollback
	Additions     int    `json:"additions"`
	Deletions     int    `json:"deletions"`
}

// DirChange is a directory a mkdir asked for.
type DirChange struct {
	Path          string `json:"path"`
	ExistedBefore bool   `json:"existedBefore"`
}
