import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentProgram, whyUnbundled } from '../kit/src/bundle.js';

/**
 * A built executable (a capability worker, the svc command): dist/main.js, dist/program.js, the project's build
 * info, and (when written) the bundle.
 */
describe('currentProgram', () => {
  let dist: string;
  let buildInfo: string;
  const mainUrl = (): string => pathToFileURL(join(dist, 'main.js')).href;
  const url = (path: string): string => pathToFileURL(join(dist, path)).href;

  const writeBundle = (): void => {
    mkdirSync(join(dist, 'bundle'));
    writeFileSync(join(dist, 'bundle/program.js'), '');
    writeFileSync(join(dist, 'bundle/inputs.json'), JSON.stringify({ '../.tsbuildinfo': statSync(buildInfo).mtimeMs }));
  };

  beforeEach(() => {
    dist = join(mkdtempSync(join(tmpdir(), 'svc-program-bundle-')), 'dist');
    mkdirSync(dist);
    buildInfo = join(dist, '.tsbuildinfo');
    for (const file of ['main.js', 'program.js']) writeFileSync(join(dist, file), '');
    writeFileSync(buildInfo, '{}');
  });

  afterEach(() => rmSync(join(dist, '..'), { recursive: true, force: true }));

  it('runs program.js when there is no bundle, and says so', () => {
    expect(currentProgram(mainUrl())).toBe(url('program.js'));
    expect(whyUnbundled()).toBe(`there is no bundle in ${join(dist, 'bundle')}`);
  });

  it('runs the bundle while the projects it was built from are unchanged', () => {
    writeBundle();
    expect(currentProgram(mainUrl())).toBe(url('bundle/program.js'));
    expect(whyUnbundled()).toBeUndefined();
  });

  it('runs program.js once a project the bundle was built from is rebuilt (a plain tsc -b), naming it', () => {
    writeBundle();
    const later = new Date(statSync(buildInfo).mtimeMs + 5000);
    utimesSync(buildInfo, later, later);
    expect(currentProgram(mainUrl())).toBe(url('program.js'));
    expect(whyUnbundled()).toBe(`${buildInfo} changed after the bundle was built`);
  });

  it('runs program.js when an input of the bundle is gone, naming it', () => {
    writeBundle();
    rmSync(buildInfo);
    expect(currentProgram(mainUrl())).toBe(url('program.js'));
    expect(whyUnbundled()).toBe(`${buildInfo}, which the bundle was built from, is gone`);
  });

  it('runs program.js when the bundle lost its program', () => {
    writeBundle();
    rmSync(join(dist, 'bundle/program.js'));
    expect(currentProgram(mainUrl())).toBe(url('program.js'));
    expect(whyUnbundled()).toBe(`${join(dist, 'bundle/program.js')} is missing`);
  });
});
