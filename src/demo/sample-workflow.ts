// The sample workflow of the demo (contract: flow-workflow-catalog §4): a
// text-to-image graph in the server's API format, as a user would export it,
// with its bindings. `svc serve --demo` registers it as `flow/sample`.

export const SAMPLE_WORKFLOW = {
  id: 'sample',
  label: 'Sample text-to-image',
  graph: {
    '3': {
      class_type: 'KSampler',
      inputs: {
        seed: 1,
        steps: 20,
        cfg: 7,
        sampler_name: 'euler',
        scheduler: 'normal',
        denoise: 1,
        model: ['4', 0],
        positive: ['6', 0],
        negative: ['7', 0],
        latent_image: ['5', 0],
      },
      _meta: { title: 'KSampler' },
    },
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sim-base-1.5.safetensors' }, _meta: { title: 'Load Checkpoint' } },
    '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 }, _meta: { title: 'Empty Latent Image' } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a lighthouse at dusk', clip: ['4', 1] }, _meta: { title: 'Positive' } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: '', clip: ['4', 1] }, _meta: { title: 'Negative' } },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] }, _meta: { title: 'VAE Decode' } },
    '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'flow' }, _meta: { title: 'Save Image' } },
  },
  bind: {
    prompt: { node: '6', input: 'text' },
    negativePrompt: { node: '7', input: 'text' },
    seed: { node: '3', input: 'seed' },
    width: { node: '5', input: 'width' },
    height: { node: '5', input: 'height' },
    output: { node: '9' },
  },
} as const;
