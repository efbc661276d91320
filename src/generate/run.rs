//! A run of `roost generate` as its phases, each a method, in the order
//! [`super::generate_with`] calls them (docs/architecture.md §5):
//!
//! 1. [`Run::start`]: the lock beside the tree, the paths, the dataset opened;
//! 2. [`Run::clean_leftovers`]: the spare generation recorded, the folders and
//!    temporary files of killed runs removed;
//! 3. [`Run::fingerprint`]: what this run renders from ([`input`]);
//! 4. [`Run::keep_live_if_current`]: the input record of the live generation, and the
//!    live tree kept as it is when its input is this run's and it is whole;
//! 5. [`Run::new_generation`]: the live generation's file keys, and the folder to
//!    write (the spare generation renamed, or a fresh one);
//! 6. [`Generation::fill`]: the plan, its units rendered and written, the spare's
//!    stale files removed, the docs page and the dataset, the keys file begun, the
//!    manifest and the change lists;
//! 7. [`Generation::record`]: the keys file and the input record beside the tree;
//! 8. [`Generation::swap_in`]: the symlink moved to the new generation;
//! 9. [`Run::retire`]: the replaced generation kept as the spare or removed, and the
//!    unit records no generation uses collected.
//!
//! A phase that fails before the swap removes the new generation ([`Generation::discard`]):
//! the live tree, its records and its keys stay as they were.

use std::cell::Cell;
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::PoisonError;
use std::thread::JoinHandle;
use std::time::Instant;

use anyhow::{anyhow, Context};
use rayon::prelude::*;

use super::delta::{self, Delta};
use super::entry::Entry;
use super::generations::{self, remove_tree};
use super::keys::{self, FileKeys, Key};
use super::plan::{self, plan, Unit};
use super::previous::Previous;
use super::render::{self, render_unit};
use super::runs::{self, Sorted};
use super::write::Writer;
use super::{
    clean_leftovers, dataset, generation_name, generation_prefix, input, keep_live, publish, spare,
    swap_in, units, verify, Dataset, Options, Summary, MANIFEST,
};
use crate::manifest::split;
use crate::store;

/// What the phases of one run share: its options, the lock, the paths beside the
/// tree and what the run found there.
pub(super) struct Run<'a> {
    opts: &'a Options,
    dataset: Option<Dataset>,
    started: Instant,
    /// When the last step of the run ended ([`Run::mark`]).
    last_mark: Cell<Instant>,
    /// The folder holding the tree's symlink and its generations.
    parent: PathBuf,
    /// The generations' name prefix.
    prefix: String,
    _lock: crate::lock::Lock,
    /// The dataset, open from the start so that a dataset that cannot be read fails
    /// the run before anything beside the tree changes; taken by the plan.
    conn: Option<rusqlite::Connection>,
    /// The live generation's folder.
    live: Option<PathBuf>,
    /// The spare generation as recorded: its name and its files' keys.
    recorded_spare: Option<(String, keys::KeySet)>,
    spare_dir: Option<PathBuf>,
    /// The live tree's folder (the symlink resolved).
    previous_root: Option<PathBuf>,
    input: Option<input::Input>,
    /// The input record beside the tree, read when the live generation was not kept
    /// ([`Run::keep_live_if_current`]); a delta run takes its folders from it.
    live_record: Option<input::Record>,
    /// The live tree's files found missing or of another size: never linked or kept
    /// by this run, so it places them again.
    damaged: HashSet<String>,
}

/// The generation a run writes, and what it is made from.
pub(super) struct Generation {
    name: String,
    dir: PathBuf,
    /// The keys of the live generation's files, and of the spare's when it is updated
    /// in place; the new generation's keys are added as its files are placed.
    file_keys: FileKeys,
    /// Updating the spare in place: the paths it may hold beyond the live
    /// generation's ([`spare::Spare::own_paths`]).
    spare_paths: Option<Vec<String>>,
    /// A spare generation this run does not use, removed after the swap.
    unused_spare: Option<PathBuf>,
    /// The folder of the unit records ([`units`]).
    records: PathBuf,
    /// The keys file, made on a thread of its own once every file's key is in.
    keys_file: Option<JoinHandle<anyhow::Result<Vec<u8>>>>,
    /// The folders holding the generation's files, and the files at its root with
    /// their sizes, stamped in its record ([`verify::stamp_folders`]).
    folders: Vec<String>,
    top: Vec<(String, u64)>,
    /// A delta run's folders include the live generation's, some of which may be
    /// gone: only those present are stamped.
    folders_may_be_gone: bool,
}

impl<'a> Run<'a> {
    /// Phase 1: one run at a time (what is beside the tree is this run's to clean up),
    /// with the dataset open.
    pub(super) fn start(opts: &'a Options, dataset: Option<Dataset>) -> anyhow::Result<Run<'a>> {
        let started = Instant::now();
        let (parent, prefix) = generation_prefix(&opts.out)?;
        fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
        let lock = crate::lock::exclusive(
            &crate::lock::beside_folder(&opts.out)?,
            "generate",
            &opts.out,
            opts.wait,
        )?;
        crate::crash::point("generate::lock");
        let conn = store::open_api(&opts.db)?;
        let live = fs::read_link(&opts.out).ok().map(|t| parent.join(t));
        Ok(Run {
            opts,
            dataset,
            started,
            last_mark: Cell::new(started),
            parent,
            prefix,
            _lock: lock,
            conn: Some(conn),
            live,
            recorded_spare: None,
            spare_dir: None,
            previous_root: None,
            input: None,
            live_record: None,
            damaged: HashSet::new(),
        })
    }

    /// Phase 2: the folders and temporary files of runs that did not finish are
    /// removed; the live generation and the recorded spare stay (the spare until the
    /// run knows whether it can use it).
    pub(super) fn clean_leftovers(&mut self) -> anyhow::Result<()> {
        self.recorded_spare = spare::recorded(&self.opts.out, &self.prefix);
        self.spare_dir = self
            .recorded_spare
            .as_ref()
            .map(|(name, _)| self.parent.join(name));
        let keep: Vec<&Path> = [self.live.as_deref(), self.spare_dir.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        clean_leftovers(&self.parent, &self.prefix, &keep, "generate");
        input::remove_stale_temps(&self.opts.out);
        self.remove_stray_bases();
        if self.opts.out.is_dir() {
            self.previous_root = Some(self.opts.out.canonicalize()?);
        }
        Ok(())
    }

    /// The bases of file keys that no keys file beside the tree names removed
    /// ([`units::remove_stray_bases`]).
    fn remove_stray_bases(&self) {
        if let Ok(records) = units::records_dir(&self.opts.out) {
            units::remove_stray_bases(&records, &keys::bases_in_use(&self.opts.out));
        }
    }

    /// Phase 3: what this run renders from.
    pub(super) fn fingerprint(&mut self) -> anyhow::Result<()> {
        self.input = input::fingerprint(self.opts, self.dataset)?;
        Ok(())
    }

    /// Phase 4: the live generation kept as it is when it was rendered from the same
    /// input and its tree is whole (its summary); a live tree with files missing is
    /// rendered again, those files placed anew.
    pub(super) fn keep_live_if_current(&mut self) -> anyhow::Result<Option<Summary>> {
        let (Some(input), Some(live)) = (&self.input, &self.live) else {
            return Ok(None);
        };
        let Some(record) = input::read_record(&self.opts.out) else {
            return Ok(None);
        };
        if record.fingerprint != input.fingerprint
            || live.file_name() != Some(std::ffi::OsStr::new(&record.generation))
            || !live.join(split::ROOT).is_file()
            || (self.opts.manifest_json && !live.join(MANIFEST).is_file())
        {
            self.live_record = Some(record);
            return Ok(None);
        }
        // Every folder as the run that wrote it left it: no file added, removed or
        // renamed since, and the manifest is not read. Else every file is asked about.
        let missing = if verify::folders_unchanged(live, &record.folders, &record.top) {
            Vec::new()
        } else {
            verify::quick_tree(live).unwrap_or_default()
        };
        if missing.is_empty() {
            self.conn = None;
            keys::promote_pending(&self.opts.out, &record.generation);
            // The replaced generation's keys, overwritten, may have named a base.
            self.remove_stray_bases();
            return keep_live(self.opts, &self.parent, live, &record, self.started).map(Some);
        }
        eprintln!(
            "roost: {} file(s) of the live tree {} do not match its manifest (first: {}); \
             rendering it again",
            missing.len(),
            self.opts.out.display(),
            missing[0]
        );
        self.damaged.extend(missing.into_iter().map(|p| p.path));
        self.live_record = Some(record);
        Ok(None)
    }

    /// Phase 5: the folder of the new generation, with the keys that tell which files
    /// of the live generation (and of the spare) are current.
    ///
    /// The spare generation is renamed and updated in place when there is one to use
    /// and keys to tell which of its files are current; else a new folder. A spare that
    /// shares few files with the live generation (after a new executable, or when most
    /// of the data changed) would cost more to update, a file replaced being two
    /// operations, than a fresh folder filled with links: it is removed after the swap
    /// instead, as a replaced generation is.
    pub(super) fn new_generation(&mut self) -> anyhow::Result<Generation> {
        let name = generation_name(&self.prefix);
        let dir = self.parent.join(&name);
        let mut file_keys = match &self.input {
            Some(_) => FileKeys::load(
                &self.opts.out,
                &units::records_dir(&self.opts.out)?,
                self.live
                    .as_deref()
                    .and_then(Path::file_name)
                    .and_then(|n| n.to_str()),
            ),
            None => FileKeys::default(),
        };
        let spare = match &self.live {
            Some(live) if file_keys.has_previous() => self
                .recorded_spare
                .take()
                .and_then(|(name, keys)| spare::find(&self.parent, &name, keys, live))
                .filter(|s| file_keys.shared_with(&s.keys) * 2 >= file_keys.previous_len()),
            _ => None,
        };
        spare::forget(&self.opts.out);
        crate::crash::point("generate::forget_spare");
        let mut spare_paths = None;
        if let Some(s) = spare {
            if fs::rename(&s.dir, &dir).is_ok() {
                file_keys.set_spare(s.keys);
                spare_paths = Some(s.own_paths);
            }
        }
        let unused_spare = self
            .spare_dir
            .take()
            .filter(|d| d.exists() && Some(d) != self.live.as_ref());
        if spare_paths.is_none() {
            fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        crate::crash::point("generate::new_generation");
        Ok(Generation {
            name,
            dir,
            file_keys,
            spare_paths,
            unused_spare,
            records: units::records_dir(&self.opts.out)?,
            keys_file: None,
            folders: Vec::new(),
            top: Vec::new(),
            folders_may_be_gone: false,
        })
    }

    /// Phase 9: the replaced generation becomes the spare when its keys can go with
    /// it, else it is removed; a spare this run did not use is removed; the unit
    /// records no generation beside the tree can use any more are collected. Nothing
    /// here fails the run (a folder it cannot remove is a leftover the next run
    /// removes).
    pub(super) fn retire(&self, generation: Generation) {
        let keep_spare = self.input.is_some()
            && keys::promote(
                &self.opts.out,
                generation.file_keys.has_previous() && self.live.is_some(),
            );
        crate::crash::point("generate::retire");
        if let Some(old) = &self.live {
            if old.file_name() != Some(std::ffi::OsStr::new(&generation.name)) && !keep_spare {
                remove_tree(old);
            }
        }
        if let Some(unused) = &generation.unused_spare {
            remove_tree(unused);
        }
        if self.input.is_some() {
            crate::crash::point("generate::collect_units");
            let bases = keys::bases_in_use(&self.opts.out);
            units::collect_garbage(&generation.records, &bases, |key| {
                generation.file_keys.unit_in_use(key)
            });
        }
    }

    /// The run's time so far, in milliseconds.
    pub(super) fn millis(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// The end of a step of the run, logged (`RUST_LOG=roost::generate=debug`) with
    /// how long it took since the step before and since the run started.
    pub(super) fn mark(&self, step: &'static str) {
        let now = Instant::now();
        let took = now - self.last_mark.replace(now);
        tracing::debug!(
            target: "roost::generate",
            step,
            seconds = format!("{:.3}", took.as_secs_f64()),
            at = format!("{:.3}", (now - self.started).as_secs_f64()),
        );
    }
}

impl Generation {
    /// Phase 6: the plan rendered and written into the generation's folder, then its
    /// manifest; the summary of what was placed. A delta run ([`delta`]) when the
    /// live generation allows one ([`Generation::delta_base`]).
    pub(super) fn fill(&mut self, run: &mut Run<'_>) -> anyhow::Result<Summary> {
        let opts = run.opts;
        let conn = run
            .conn
            .take()
            .ok_or_else(|| anyhow!("the dataset was closed before the plan"))?;
        let plan = plan(&conn)?;
        let order = plan::longest_first(&conn, &plan);
        drop(conn);
        run.mark("plan");
        let base = self.delta_base(run);
        let mut writer = Writer::new(
            self.dir.clone(),
            run.previous_root.clone(),
            Previous::open(run.previous_root.as_deref()),
            opts.precompress,
            self.spare_paths.is_some(),
        )
        .never_linking(std::mem::take(&mut run.damaged));
        let base = base.filter(|_| writer.previous.is_split());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(opts.jobs.unwrap_or(0))
            .build()?;
        let delta = base.as_ref().map(|_| Delta::default());
        let mut keying = run.input.as_ref().map(|i| render::Keying {
            salt: &i.salt,
            digests: &i.digests,
            files: &self.file_keys,
            records: &self.records,
            rowid_tables: Default::default(),
            delta: delta.as_ref(),
            loose: Default::default(),
            partial: Default::default(),
        });
        let (mut entries, units_skipped) =
            render_units(opts, &plan, &order, &writer, keying.as_ref(), &pool)?;
        run.mark("units");
        let spill = self.dir.parent().unwrap_or(&self.dir).to_path_buf();
        let mut removed = None;
        if let (Some(d), Some((units, _))) = (&delta, &base) {
            let resolved = delta::resolve(d, units, &self.records, &spill)?;
            run.mark("delta");
            let unknown = matches!(resolved, delta::Resolved::Unknown);
            if let delta::Resolved::Delta(r) = resolved {
                removed = Some(r);
            }
            if unknown {
                // A live unit's files cannot be named (its record unreadable): the units
                // again, every entry handed on.
                writer.place_again();
                drop(self.file_keys.take_new(false, None));
                if let Some(k) = &mut keying {
                    (k.delta, k.loose, k.partial) = (None, Default::default(), Default::default());
                }
                // The units skipped are those the first pass did not render (the second
                // places from their records the units the first pass rendered).
                (entries, _) = render_units(opts, &plan, &order, &writer, keying.as_ref(), &pool)?;
                run.mark("units, every entry");
            }
        }
        // The docs page and the dataset, added to the units' entries.
        let previous = &writer.previous;
        let docs = match &removed {
            Some(r) => render::render_docs(&writer, &|p| {
                delta::first_from(previous, &entries, &r.paths, p)
            }),
            None => render::render_docs(&writer, &|p| entries.first_from(p)),
        }?;
        let datasets = match run.dataset {
            Some(which) => {
                pool.install(|| dataset::write(&writer, &opts.db, which, keying.as_ref()))?
            }
            None => Vec::new(),
        };
        let complete = match keying.take() {
            Some(k) => self.record_loose(k, &docs, &datasets)?,
            None => false,
        };
        let mut later = docs;
        later.extend(datasets.into_iter().flat_map(|(_, entries)| entries));
        // Every file's key is in: the keys file is made beside the manifest.
        if run.input.is_some() {
            let carried = removed.as_mut().map(|r| std::mem::take(&mut r.keys));
            let (keys, generation, bases) = (
                self.file_keys.take_new(complete, carried),
                self.name.clone(),
                self.records.clone(),
            );
            self.keys_file = Some(std::thread::spawn(move || keys.encode(&generation, &bases)));
        }
        entries.add(later)?;
        run.mark("docs and dataset");
        let source = match (&removed, &base) {
            (Some(r), Some((_, live))) => publish::Source::Delta {
                delta: &entries,
                removed: &r.paths,
                live_top: &live.top,
            },
            _ => publish::Source::Full(&entries),
        };
        let mut summary = self.publish(run, &writer, source)?;
        if let (Some(d), Some(_), Some((_, live))) = (&delta, &removed, &base) {
            // The files kept from the live generation without being handed on are
            // unchanged, placed by key; its folders are this generation's too.
            let carried = summary.files.saturating_sub(entries.len() + d.counted());
            summary.unchanged += carried;
            summary.rendered = summary.rendered.saturating_sub(carried);
            self.folders
                .extend(live.folders.iter().map(|f| f.path.clone()));
            self.folders.sort_unstable();
            self.folders.dedup();
            self.folders_may_be_gone = true;
        }
        summary.units = plan.len() as u64;
        summary.units_skipped = units_skipped;
        Ok(summary)
    }

    /// The record of the generation's loose files (the fixed documents the units
    /// placed, the docs page, the dataset's files), its key among the unit keys;
    /// whether the units' records and it list every file.
    fn record_loose(
        &self,
        keying: render::Keying,
        docs: &[Entry],
        datasets: &[(Key, Vec<Entry>)],
    ) -> anyhow::Result<bool> {
        let mut loose = keying
            .loose
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        loose.extend(docs.iter().cloned());
        let key = units::loose_key(&self.name);
        units::write_loose(&self.records, key, loose, datasets)?;
        self.file_keys.add_unit(key);
        Ok(!keying.partial.load(AtomicOrdering::Relaxed))
    }

    /// What a delta run needs of the live generation: its unit keys, when its units
    /// list all its files, and its record, when that stamps its folders; none when a
    /// file of it is damaged or the run has no input.
    fn delta_base(&self, run: &mut Run<'_>) -> Option<(Vec<Key>, input::Record)> {
        run.input.as_ref()?;
        let record = run.live_record.take()?;
        let live = run.live.as_ref()?.file_name()?.to_str()?;
        let units = self.file_keys.previous_units()?;
        let usable = run.damaged.is_empty()
            && record.generation == live
            && !record.folders.is_empty()
            && run.previous_root.is_some();
        usable.then(|| (units.to_vec(), record))
    }

    /// The manifest and the change lists written in one pass over the tree's entries,
    /// what the spare held that this generation does not removed, and what was
    /// written synced.
    fn publish(
        &mut self,
        run: &Run<'_>,
        writer: &Writer,
        source: publish::Source,
    ) -> anyhow::Result<Summary> {
        crate::crash::point("generate::manifest");
        let own = self.spare_paths.as_deref().unwrap_or_default();
        let written = publish::write(writer, source, own, run.opts.manifest_json)?;
        run.mark("manifest");
        let removed = written.removed.len() as u64;
        if self.spare_paths.is_some() {
            // What the spare holds that this generation does not: the previous
            // generation's paths no longer listed, the spare's own paths not listed.
            crate::crash::point("generate::remove_stale");
            spare::remove_stale(
                &self.dir,
                written
                    .removed
                    .iter()
                    .chain(&written.unlisted)
                    .map(String::as_str),
            )?;
            spare::remove_stale_chunks(&self.dir, written.paths.iter().map(String::as_str))?;
        }
        (self.folders, self.top) = (written.folders, written.top);
        // What this run wrote, and the folders it placed documents in; a document it
        // linked is the previous generation's file, on disk already.
        let mut synced = written.written;
        synced.extend(
            [crate::manifest::CHUNK_DIR, "changes"]
                .into_iter()
                .filter(|folder| self.dir.join(folder).is_dir())
                .map(str::to_string),
        );
        run.mark("spare's stale files");
        crate::crash::point("generate::sync");
        generations::sync_paths(&self.dir, synced.iter().map(String::as_str))?;
        run.mark("sync");
        Ok(Summary {
            files: written.files,
            documents: written.documents,
            bytes: written.bytes,
            written: writer.written.load(AtomicOrdering::Relaxed),
            unchanged: writer.unchanged.load(AtomicOrdering::Relaxed),
            removed,
            rendered: written
                .files
                .saturating_sub(writer.by_key.load(AtomicOrdering::Relaxed)),
            ..Summary::default()
        })
    }

    /// Phase 7: the keys file and the record of this generation's input, before it is
    /// swapped in (a record naming a generation that is not live is ignored). Without
    /// an input (the executable unidentified), the records of earlier runs are
    /// removed instead.
    pub(super) fn record(&mut self, run: &Run<'_>, summary: &Summary) -> anyhow::Result<()> {
        let out = &run.opts.out;
        let Some(input) = &run.input else {
            input::remove_record(out);
            keys::remove(out);
            units::remove_all(out);
            return Ok(());
        };
        // A run that reached here with an input started its keys file.
        match self.keys_file.take().map(JoinHandle::join) {
            Some(Ok(Ok(bytes))) => keys::write_next(out, &bytes)?,
            Some(Ok(Err(e))) => return Err(e.context(format!("the keys of {}", self.name))),
            _ => return Err(anyhow!("making the keys file of {} failed", self.name)),
        }
        run.mark("keys file");
        input::write_record(
            out,
            &input::Record {
                generation: self.name.clone(),
                fingerprint: input.fingerprint.clone(),
                files: summary.files,
                bytes: summary.bytes,
                documents: summary.documents,
                folders: match self.folders_may_be_gone {
                    true => verify::stamp_present_folders(&self.dir, &self.folders),
                    false => verify::stamp_folders(&self.dir, &self.folders).unwrap_or_default(),
                },
                top: std::mem::take(&mut self.top),
            },
        )
    }

    /// Phase 8: the symlink moved to the new generation, the last step that can fail.
    pub(super) fn swap_in(&self, run: &Run<'_>) -> anyhow::Result<()> {
        swap_in(&run.opts.out, &run.parent, &self.name, "generate")?;
        crate::crash::point("generate::swapped");
        Ok(())
    }

    /// A run that failed before its swap: the new generation and its next keys file
    /// removed, the live tree as it was.
    pub(super) fn discard(&self, run: &Run<'_>) {
        remove_tree(&self.dir);
        if let Ok(next) = keys::next_keys_path(&run.opts.out) {
            let _ = fs::remove_file(next);
        }
    }
}

/// The units rendered and written in parallel, taken from one queue, longest expected
/// first, each by the first worker free: the long units (a large list's orderings, its
/// details) start at once and the short ones fill in after them, so no long unit
/// starts last while the other worker has nothing left to take. Their entries sorted
/// by path (each worker's gathered in a [`runs::Sink`] as its units place them), and how
/// many units were skipped whole.
fn render_units(
    opts: &Options,
    plan: &[Unit],
    order: &[usize],
    writer: &Writer,
    keying: Option<&render::Keying<'_>>,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<(Sorted, u64)> {
    let bar = if opts.progress {
        indicatif::ProgressBar::new(plan.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} units {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let conns = render::Connections::new(&opts.db);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let skipped = AtomicUsize::new(0);
    // The runs' files beside the tree, where the generation is.
    let spill = writer.root.parent().unwrap_or(&writer.root);
    let sinks = pool.install(|| {
        (0..rayon::current_num_threads())
            .into_par_iter()
            .map(|_| {
                let mut sink = runs::Sink::new(spill, runs::BUDGET);
                while !stop.load(AtomicOrdering::Relaxed) {
                    let Some(&i) = order.get(next.fetch_add(1, AtomicOrdering::Relaxed)) else {
                        break;
                    };
                    let began = Instant::now();
                    let was_skipped =
                        render_unit(writer, opts, &plan[i], keying, &conns, &mut sink)
                            .inspect_err(|_| stop.store(true, AtomicOrdering::Relaxed))?;
                    tracing::trace!(
                        target: "roost::generate",
                        unit = %plan[i],
                        skipped = was_skipped,
                        seconds = format!("{:.3}", began.elapsed().as_secs_f64()),
                    );
                    if was_skipped {
                        skipped.fetch_add(1, AtomicOrdering::Relaxed);
                    }
                    bar.inc(1);
                }
                anyhow::Ok(sink)
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    bar.finish_and_clear();
    Ok((Sorted::of(sinks)?, skipped.into_inner() as u64))
}
