// The instruction the CLI reads on stdin (contract §3): our own wording around
// the lines the CLI (and its fake, and our fallback scan) depend on, each with
// exactly its prefix: `  Prompt:`, `  ImageName:`, `  ImagePaths:`,
// `  toolSummary:`, `  toolAction:`; and the final line it must print.

export interface Instruction {
  readonly prompt: string;
  /** The artifact's file stem (the fallback scan looks for files starting with it). */
  readonly imageName: string;
  /** Absolute paths of the input images; the edited image first. */
  readonly imagePaths: readonly string[];
  readonly editing: boolean;
}

export function instructionText(instruction: Instruction): string {
  const count = instruction.imagePaths.length;
  const inputs =
    count === 0
      ? 'There are no input images.'
      : instruction.editing
        ? `There are ${count} input image(s): the first is the image to edit, the others are references.`
        : `There are ${count} reference image(s): use them as visual references for the new image.`;
  return [
    'Generate exactly one image for the user of a local image studio.',
    'Call the image generation tool once, with the values below, and do nothing else.',
    `  Prompt: ${JSON.stringify(instruction.prompt)}`,
    `  ImageName: ${JSON.stringify(instruction.imageName)}`,
    `  ImagePaths: ${JSON.stringify(instruction.imagePaths)}`,
    `  toolSummary: ${JSON.stringify(instruction.editing ? 'Edit one image' : 'Generate one image')}`,
    `  toolAction: ${JSON.stringify('generate_image')}`,
    inputs,
    'The output resolution is fixed at 1024x1024.',
    "Keep the user's language and wording: do not translate, embellish or rewrite a benign prompt.",
    'If the image was saved, end with exactly this line:',
    'RESULT|<absolute_artifact_path>|<file_extension>',
    'If it could not be made, end with exactly this line:',
    'ERROR|<message>',
    '',
  ].join('\n');
}
