//! A whole model file read in order: the header, the trunk, the policy head and the value
//! head, each checked against the others as it is read.

use super::desc::{
    ModelDesc, PassHiddenDesc, PolicyHeadDesc, PostProcessParams, TrunkDesc, TrunkTipDesc,
    ValueHeadDesc, SUPPORTED_VERSIONS,
};
use super::error::ModelError;
use super::parser::{Parser, MAX_BLOCKS, MAX_CHANNELS};
use crate::nn::input::sizes::{NUM_GLOBAL_FEATURES, NUM_SPATIAL_FEATURES};

/// The input planes and global inputs a net must take, as the file's integers.
const SPATIAL: i64 = NUM_SPATIAL_FEATURES as i64;
const GLOBAL: i64 = NUM_GLOBAL_FEATURES as i64;

/// What the header says.
struct Header {
    name: String,
    version: i64,
    num_input_channels: usize,
    num_global_channels: usize,
    post_process: PostProcessParams,
    meta_encoder_version: i64,
    prefer_pass_alive_under_suicide: bool,
}

impl Parser<'_> {
    /// A whole model: header, trunk, policy and value heads.
    pub(super) fn model(&mut self) -> Result<ModelDesc, ModelError> {
        let h = self.header()?;
        let trunk = self.trunk(&h)?;
        let policy = self.policy_head(h.version, trunk.channels)?;
        let value = self.value_head(h.version, trunk.channels)?;
        Ok(ModelDesc {
            name: h.name,
            version: h.version,
            num_input_channels: h.num_input_channels,
            num_global_channels: h.num_global_channels,
            post_process: h.post_process,
            parameters: self.params,
            meta_encoder_version: h.meta_encoder_version,
            prefer_pass_alive_under_suicide: h.prefer_pass_alive_under_suicide,
            trunk,
            policy,
            value,
        })
    }

    /// The header: name, version, input counts and the options of later versions.
    fn header(&mut self) -> Result<Header, ModelError> {
        let name = self.token()?.to_string();
        self.context = format!("model '{name}' header");
        let version = self.int("model version", i64::MIN, i64::MAX)?;
        if !SUPPORTED_VERSIONS.contains(&version) {
            return Err(self.err(format!(
                "model version {version} is not supported (supported: {}..={}; a newer version \
                 needs a newer tengen)",
                SUPPORTED_VERSIONS.start(),
                SUPPORTED_VERSIONS.end()
            )));
        }
        let num_input_channels = self.int("numInputChannels", SPATIAL, SPATIAL)? as usize;
        let num_global_channels = self.int("numInputGlobalChannels", GLOBAL, GLOBAL)? as usize;
        let mut post_process = PostProcessParams::default();
        if version >= 13 {
            let positive = |p: &mut Self, what: &str| -> Result<f64, ModelError> {
                let v = p.float(what)?;
                if v <= 0.0 {
                    return Err(p.err(format!("{what} must be positive")));
                }
                Ok(v)
            };
            post_process = PostProcessParams {
                td_score_multiplier: positive(self, "tdScoreMultiplier")?,
                score_mean_multiplier: positive(self, "scoreMeanMultiplier")?,
                score_stdev_multiplier: positive(self, "scoreStdevMultiplier")?,
                lead_multiplier: positive(self, "leadMultiplier")?,
                variance_time_multiplier: positive(self, "varianceTimeMultiplier")?,
                shortterm_value_error_multiplier: positive(self, "shorttermValueErrorMultiplier")?,
                shortterm_score_error_multiplier: positive(self, "shorttermScoreErrorMultiplier")?,
            };
        }
        let mut meta_encoder_version = 0;
        let mut prefer_pass_alive_under_suicide = false;
        if version >= 15 {
            meta_encoder_version = self.int("metaEncoderVersion", 0, 1)?;
            prefer_pass_alive_under_suicide =
                self.int("preferPassAliveUnderSuicideRules", 0, 1)? == 1;
            self.zeros("model option", b'C', 6)?;
        }
        Ok(Header {
            name,
            version,
            num_input_channels,
            num_global_channels,
            post_process,
            meta_encoder_version,
            prefer_pass_alive_under_suicide,
        })
    }

    /// The trunk: its sizes, initial layers, metadata encoder, blocks and tip.
    fn trunk(&mut self, h: &Header) -> Result<TrunkDesc, ModelError> {
        let (version, meta_encoder_version) = (h.version, h.meta_encoder_version);
        let (num_input_channels, num_global_channels) =
            (h.num_input_channels, h.num_global_channels);
        self.name()?;
        let num_blocks = self.count("trunk blocks", MAX_BLOCKS)?;
        let channels = self.count("trunk channels", MAX_CHANNELS)?;
        self.count("mid channels", MAX_CHANNELS)?;
        self.count("regular channels", MAX_CHANNELS)?;
        self.int("dilated channels", 0, MAX_CHANNELS)?;
        self.count("gpool channels", MAX_CHANNELS)?;
        let rms_tip = if version >= 15 {
            let kind = self.int("trunk norm kind", 0, 1)?;
            self.zeros("trunk option", b'B', 5)?;
            kind == 1
        } else {
            false
        };
        let initial_conv = self.conv()?;
        self.same(
            initial_conv.in_channels,
            num_input_channels,
            "initial conv input vs input channels",
        )?;
        self.same(
            initial_conv.out_channels,
            channels,
            "initial conv output vs trunk",
        )?;
        let initial_matmul = self.matmul()?;
        self.same(
            initial_matmul.in_channels,
            num_global_channels,
            "initial matmul input vs global channels",
        )?;
        self.same(
            initial_matmul.out_channels,
            channels,
            "initial matmul output vs trunk",
        )?;
        let metadata_encoder = if meta_encoder_version > 0 {
            Some(self.metadata_encoder(version, channels)?)
        } else {
            None
        };
        let blocks = self.block_stack(version, num_blocks, channels, 0)?;
        let tip = if rms_tip {
            let norm = self.rms_norm()?;
            self.same(norm.channels, channels, "trunk tip RMSNorm vs trunk")?;
            TrunkTipDesc::RmsNorm(norm)
        } else {
            let bn = self.batch_norm()?;
            self.same(bn.channels, channels, "trunk tip BN vs trunk")?;
            TrunkTipDesc::BatchNorm(bn)
        };
        let tip_act = self.activation(version)?;
        Ok(TrunkDesc {
            channels,
            initial_conv,
            initial_matmul,
            metadata_encoder,
            blocks,
            tip,
            tip_act,
        })
    }

    /// The policy head, checked against the trunk's `channels`.
    fn policy_head(&mut self, version: i64, channels: usize) -> Result<PolicyHeadDesc, ModelError> {
        self.name()?;
        let policy_channels = match version {
            17.. => {
                let channels = self.int("policyOutChannels", 2, 4)? as usize;
                if channels == 3 {
                    return Err(self.err("policyOutChannels must be 2 or 4"));
                }
                self.zeros("policy option", b'A', 3)?;
                channels
            }
            16 => 4,
            12..=15 => 2,
            _ => 1,
        };
        let p1_conv = self.conv()?;
        let g1_conv = self.conv()?;
        let g1_bn = self.batch_norm()?;
        let g1_act = self.activation(version)?;
        let gpool_to_bias = self.matmul()?;
        let p1_bn = self.batch_norm()?;
        let p1_act = self.activation(version)?;
        let p2_conv = self.conv()?;
        let gpool_to_pass = self.matmul()?;
        let pass_hidden = if version >= 15 {
            Some(PassHiddenDesc {
                bias: self.matbias()?,
                act: self.activation(version)?,
                mul2: self.matmul()?,
            })
        } else {
            None
        };
        let policy = PolicyHeadDesc {
            p1_conv,
            g1_conv,
            g1_bn,
            g1_act,
            gpool_to_bias,
            p1_bn,
            p1_act,
            p2_conv,
            gpool_to_pass,
            pass_hidden,
        };
        self.check_policy_head(&policy, channels, policy_channels)?;
        Ok(policy)
    }

    /// The policy head's shapes against each other and the trunk's `channels`.
    fn check_policy_head(
        &mut self,
        p: &PolicyHeadDesc,
        channels: usize,
        policy_channels: usize,
    ) -> Result<(), ModelError> {
        let PolicyHeadDesc {
            p1_conv,
            g1_conv,
            g1_bn,
            gpool_to_bias,
            p1_bn,
            p2_conv,
            gpool_to_pass,
            pass_hidden,
            ..
        } = p;
        self.context = "policy head".into();
        self.same(p1_conv.in_channels, channels, "p1Conv input vs trunk")?;
        self.same(g1_conv.in_channels, channels, "g1Conv input vs trunk")?;
        self.same(
            g1_bn.channels,
            g1_conv.out_channels,
            "g1BN vs g1Conv output",
        )?;
        self.same(
            gpool_to_bias.in_channels,
            3 * g1_bn.channels,
            "gpoolToBiasMul input vs 3 x g1BN",
        )?;
        self.same(
            gpool_to_bias.out_channels,
            p1_bn.channels,
            "gpoolToBiasMul output vs p1BN",
        )?;
        self.same(
            p1_bn.channels,
            p1_conv.out_channels,
            "p1BN vs p1Conv output",
        )?;
        self.same(p2_conv.in_channels, p1_bn.channels, "p2Conv input vs p1BN")?;
        self.same(
            p2_conv.out_channels,
            policy_channels,
            "p2Conv output vs policy channels",
        )?;
        self.same(
            gpool_to_pass.in_channels,
            3 * g1_bn.channels,
            "gpoolToPassMul input vs 3 x g1BN",
        )?;
        match &pass_hidden {
            Some(hidden) => {
                self.same(
                    gpool_to_pass.out_channels,
                    p1_conv.out_channels,
                    "gpoolToPassMul output vs p1Conv output",
                )?;
                self.same(
                    hidden.bias.weights.len(),
                    gpool_to_pass.out_channels,
                    "gpoolToPassBias vs gpoolToPassMul output",
                )?;
                self.same(
                    hidden.mul2.in_channels,
                    gpool_to_pass.out_channels,
                    "gpoolToPassMul2 input vs gpoolToPassMul output",
                )?;
                self.same(
                    hidden.mul2.out_channels,
                    policy_channels,
                    "gpoolToPassMul2 output vs policy channels",
                )?;
            }
            None => self.same(
                gpool_to_pass.out_channels,
                policy_channels,
                "gpoolToPassMul output vs policy channels",
            )?,
        }
        Ok(())
    }

    /// The value head, checked against the trunk's `channels`.
    fn value_head(&mut self, version: i64, channels: usize) -> Result<ValueHeadDesc, ModelError> {
        self.name()?;
        if version >= 17 {
            self.zeros("value option", b'A', 3)?;
        }
        let v1_conv = self.conv()?;
        let v1_bn = self.batch_norm()?;
        let v1_act = self.activation(version)?;
        let v2_mul = self.matmul()?;
        let v2_bias = self.matbias()?;
        let v2_act = self.activation(version)?;
        let v3_mul = self.matmul()?;
        let v3_bias = self.matbias()?;
        let sv3_mul = self.matmul()?;
        let sv3_bias = self.matbias()?;
        let ownership_conv = self.conv()?;
        self.context = "value head".into();
        let score_channels = if version >= 9 { 6 } else { 4 };
        self.same(v1_conv.in_channels, channels, "v1Conv input vs trunk")?;
        self.same(
            v1_bn.channels,
            v1_conv.out_channels,
            "v1BN vs v1Conv output",
        )?;
        self.same(
            v2_mul.in_channels,
            3 * v1_bn.channels,
            "v2Mul input vs 3 x v1BN",
        )?;
        self.same(
            v2_bias.weights.len(),
            v2_mul.out_channels,
            "v2Bias vs v2Mul output",
        )?;
        self.same(
            v3_mul.in_channels,
            v2_mul.out_channels,
            "v3Mul input vs v2Mul output",
        )?;
        self.same(v3_mul.out_channels, 3, "v3Mul output")?;
        self.same(v3_bias.weights.len(), 3, "v3Bias channels")?;
        self.same(
            sv3_mul.in_channels,
            v2_mul.out_channels,
            "sv3Mul input vs v2Mul output",
        )?;
        self.same(sv3_mul.out_channels, score_channels, "sv3Mul output")?;
        self.same(sv3_bias.weights.len(), score_channels, "sv3Bias channels")?;
        self.same(
            ownership_conv.in_channels,
            v1_conv.out_channels,
            "ownership conv input vs v1Conv output",
        )?;
        self.same(ownership_conv.out_channels, 1, "ownership conv output")?;
        Ok(ValueHeadDesc {
            v1_conv,
            v1_bn,
            v1_act,
            v2_mul,
            v2_bias,
            v2_act,
            v3_mul,
            v3_bias,
            sv3_mul,
            sv3_bias,
            ownership_conv,
        })
    }
}
