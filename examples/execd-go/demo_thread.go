// SPDX-License-Identifier: Apache-2.0
// Copyright The osb-isolate authors

// demo_thread.go — a session started from a goroutine that locks its OS
// thread and then returns: the Go runtime ends that thread. bwrap's
// --die-with-parent signal follows the thread that started bwrap, and that
// thread is the library's session owner process, not this one: the session
// lives on and serves the next command.
package main

/*
#include <osb-isolate.h>
*/
import "C"

import (
	"os"
	"runtime"
	"time"
)

type threadExitEvent struct {
	Event        string     `json:"event"`
	SandboxEnded bool       `json:"sandbox_ended"`
	SpawnError   *errorJSON `json:"spawn_error"`
}

// The runtime never ends the process's main thread (it parks it instead),
// so a goroutine that happened to run there would survive its own exit.
// Keeping the main goroutine on the main thread makes every other
// goroutine, the demonstration's included, run on threads that can end.
func init() { runtime.LockOSThread() }

// startOnExitingThread returns a session whose starting thread is gone.
func startOnExitingThread(pol *Policy, opts *SessionOpts) (*C.osb_session, error) {
	type started struct {
		s   *C.osb_session
		err error
	}
	ready := make(chan started)
	go func() {
		runtime.LockOSThread()
		var e C.osb_error
		s := C.osb_session_start_opts(pol.p, opts.o, &e)
		if s == nil {
			ready <- started{nil, fromC(-1, &e, "osb_session_start_opts")}
			return
		}
		ready <- started{s, nil}
		// Returning while locked: the runtime terminates this thread.
	}()
	st := <-ready
	runtime.KeepAlive(pol)
	runtime.KeepAlive(opts)
	return st.s, st.err
}

func demoThreadExit(file string, offered []string, em *emitter) error {
	req, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	_, pol, err := baseline(req, offered)
	if err != nil {
		return err
	}
	defer pol.Free()
	if err = pol.ApplyJSON(req); err != nil {
		return err
	}
	opts := NewSessionOpts()
	defer opts.Free()
	s, err := startOnExitingThread(pol, opts)
	if err != nil {
		return err
	}
	defer C.osb_session_free(s)
	sess := &Session{s: s}
	ended := sess.Ended(1 * time.Second)
	ev := threadExitEvent{Event: "thread_exit_demo", SandboxEnded: ended}
	pr, err := sess.Spawn(&Exec{Argv: []string{"true"}})
	if err == nil {
		_, err = pr.Wait()
		pr.Free()
	}
	if err != nil {
		ev.SpawnError = errorOf(err)
	}
	em.emit(ev)
	return nil
}
