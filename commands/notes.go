package commands

import "github.com/spf13/cobra"

func (a *app) notesCmd() *cobra.Command { return &cobra.Command{Use: "notes"} }
