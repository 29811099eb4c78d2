// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {LaunchHookBase} from "./LaunchHookBase.sol";
import {DividendDistributor} from "./DividendDistributor.sol";

/// What a tax launch chooses (the request's `tax`), rates and shares in PS units (100000000 = 100%).
struct TaxTerms {
    uint32 buyTaxRate;
    uint32 sellTaxRate;
    uint32 creatorShare;
    uint32 burnShare;
    uint32 dividendShare;
    uint32 integratorShare;
    address creatorFeeRecipient;
    address integratorFeeRecipient;
    uint256 minimumDividendHolding;
    bool antiSnipe;
}

/// The suite's inclusive tax policy (REFERENCE §5), rates in PS units; frozen into each pool at launch.
struct TaxPolicy {
    uint32 minimumBuyTaxRate;
    uint32 maximumBuyTaxRate;
    uint32 minimumSellTaxRate;
    uint32 maximumSellTaxRate;
    uint32 protocolTaxShare;
    uint32 minimumProtocolFeeRate;
    uint32 maximumProtocolFeeRate;
    address protocolFeeRecipient;
    uint32 antiSnipeStartRate;
    uint32 antiSnipeWindowSeconds;
    uint256 minimumDividendHoldingRequirement;
}


struct TaxPoolConfig {
    bool initialized;
    bool tokenIsCurrency0;
    uint48 launchTime;
    address token;
    address currentCreator;
    TaxTerms terms;
    TaxPolicy policy;
}

/// @title TaxHook
/// @notice The hook of inclusive tax launches: a buy tax and a sell tax taken in the quote currency. The
/// protocol's fee is carved out of the tax (clamp(T × share, min, max)); the remainder is split between
/// creator, burn, dividend and integrator by the launch's shares. Per component and trade the amount is
/// baseTax × R2 × share / (T × PS²); the protocol takes the rest (its part, rounding, any anti-snipe
/// surcharge, and the dividend part when no holder has eligible shares). Creator, integrator and protocol
/// amounts are fee-escrow credits; the burn part is minted as a PoolManager claim to 0xdEaD (never
/// redeemable); the dividend part is minted to the distributor and allocated to holders at once.
contract TaxHook is LaunchHookBase {
    using PoolIdLibrary for PoolKey;

    address public constant DEAD = 0x000000000000000000000000000000000000dEaD;

    DividendDistributor public dividendDistributor;
    mapping(PoolId => TaxPoolConfig) private _pools;

    event TaxPoolRegistered(PoolId indexed poolId, address indexed token, TaxTerms terms);

    /// Rule numbers follow REFERENCE §5: 1 rates, 2 shares, 3 dividend holding, 4 integrator, 5 anti-snipe,
    /// 6 creator fee recipient.
    error InvalidTaxTerms(uint8 rule);

    constructor(IPoolManager poolManager_, address deployer_) LaunchHookBase(poolManager_, deployer_) {}

    /// @notice Binds the dividend distributor, once, by the deployer (before `wire`).
    function wireDividends(DividendDistributor distributor) external {
        if (msg.sender != deployer) revert NotFactory();
        if (address(dividendDistributor) != address(0)) revert AlreadyWired();
        dividendDistributor = distributor;
    }

    function registerTaxPool(
        PoolKey calldata key,
        bool tokenIsCurrency0,
        address originalCreator,
        TaxTerms calldata terms,
        TaxPolicy calldata policy,
        uint256 launchSupply
    ) external onlyFactory {
        PoolId id = key.toId();
        if (_pools[id].initialized) revert AlreadyRegistered();
        checkTaxTerms(terms, policy, launchSupply);
        address token = Currency.unwrap(tokenIsCurrency0 ? key.currency0 : key.currency1);
        _pools[id] = TaxPoolConfig(true, tokenIsCurrency0, uint48(block.timestamp), token, originalCreator, terms, policy);
        quoteOf[id] = Currency.unwrap(tokenIsCurrency0 ? key.currency1 : key.currency0);
        emit TaxPoolRegistered(id, token, terms);
    }

    /// @notice Reverts InvalidTaxTerms(rule) unless `t` satisfies policy `p` (REFERENCE §5).
    function checkTaxTerms(TaxTerms calldata t, TaxPolicy calldata p, uint256 launchSupply) public pure {
        if (
            t.buyTaxRate < p.minimumBuyTaxRate || t.buyTaxRate > p.maximumBuyTaxRate
                || t.sellTaxRate < p.minimumSellTaxRate || t.sellTaxRate > p.maximumSellTaxRate
                || (t.buyTaxRate > 0 && t.buyTaxRate < p.minimumProtocolFeeRate)
                || (t.sellTaxRate > 0 && t.sellTaxRate < p.minimumProtocolFeeRate)
        ) revert InvalidTaxTerms(1);
        uint256 sum = uint256(t.creatorShare) + t.burnShare + t.dividendShare + t.integratorShare;
        (, uint256 buyRest) = _split(t.buyTaxRate, p);
        (, uint256 sellRest) = _split(t.sellTaxRate, p);
        if (buyRest > 0 || sellRest > 0) {
            if (sum != PS) revert InvalidTaxTerms(2);
        } else if (sum != 0 || t.minimumDividendHolding != 0) {
            revert InvalidTaxTerms(2);
        }
        if (t.dividendShare > 0) {
            if (t.minimumDividendHolding < p.minimumDividendHoldingRequirement || t.minimumDividendHolding > launchSupply)
            {
                revert InvalidTaxTerms(3);
            }
        } else if (t.minimumDividendHolding != 0) {
            revert InvalidTaxTerms(3);
        }
        if (t.integratorShare > 0 && t.integratorFeeRecipient == address(0)) revert InvalidTaxTerms(4);
        if (t.antiSnipe && p.antiSnipeWindowSeconds == 0) revert InvalidTaxTerms(5);
        if (t.creatorFeeRecipient == address(0)) revert InvalidTaxTerms(6);
    }

    /// P2 = clamp(T × share, minP × PS, maxP × PS) and the remainder R2 = T × PS − P2 (floored at 0), in PS².
    function _split(uint256 rate, TaxPolicy memory p) private pure returns (uint256 p2, uint256 r2) {
        p2 = rate * p.protocolTaxShare;
        uint256 lo = uint256(p.minimumProtocolFeeRate) * PS;
        uint256 hi = uint256(p.maximumProtocolFeeRate) * PS;
        p2 = p2 < lo ? lo : p2 > hi ? hi : p2;
        r2 = rate * PS > p2 ? rate * PS - p2 : 0;
    }

    /// 99%: no swap pays more.
    uint256 public constant MAX_TOTAL_RATE = 99_000_000;

    function updateCreatorRights(PoolId id, address currentCreator, address creatorFeeRecipient)
        external
        override
        onlyFactory
    {
        TaxPoolConfig storage c = _pools[id];
        if (!c.initialized) revert UnknownPool();
        c.currentCreator = currentCreator;
        c.terms.creatorFeeRecipient = creatorFeeRecipient;
        emit CreatorRightsUpdated(id, currentCreator, creatorFeeRecipient);
    }

    // ---------------------------------------------------------------- views

    function taxPool(PoolId id) external view returns (TaxPoolConfig memory) {
        return _pools[id];
    }

    /// @notice The rate a buy or a sell pays at the current block time, in PS units.
    function currentTaxRate(PoolId id, bool buy) external view returns (uint256) {
        return _rate(_pools[id], buy);
    }

    // ---------------------------------------------------------------- fees

    function _tokenIsCurrency0(PoolId id) internal view override returns (bool) {
        TaxPoolConfig storage c = _pools[id];
        if (!c.initialized) revert UnknownPool();
        return c.tokenIsCurrency0;
    }

    function _swapRates(address, PoolId id, bool buy, bool exactIn, bool)
        internal
        view
        override
        returns (uint256 rate, uint256 baseRate)
    {
        TaxPoolConfig storage c = _pools[id];
        baseRate = buy ? c.terms.buyTaxRate : c.terms.sellTaxRate;
        rate = _rate(c, buy);
        if (!exactIn && rate > baseRate) revert ExactOutputDisabledDuringAntiSnipe();
    }

    /// The side's tax, plus (when the launch enabled it) a surcharge from the anti-snipe start rate that
    /// decays linearly to 0 over the window.
    function _rate(TaxPoolConfig storage c, bool buy) private view returns (uint256) {
        uint256 rate = buy ? c.terms.buyTaxRate : c.terms.sellTaxRate;
        if (!c.terms.antiSnipe) return rate;
        uint256 window = c.policy.antiSnipeWindowSeconds;
        uint256 start = c.policy.antiSnipeStartRate;
        uint256 elapsed = block.timestamp - c.launchTime;
        if (elapsed >= window || start <= rate) return rate;
        uint256 total = rate + (start - rate) * (window - elapsed) / window;
        return total > MAX_TOTAL_RATE ? MAX_TOTAL_RATE : total;
    }

    /// The amounts of one trade's tax.
    struct Amounts {
        uint256 creator;
        uint256 burn;
        uint256 dividend;
        uint256 integrator;
        uint256 protocol;
    }

    /// @notice How a trade's tax `fee` (of which `baseFee` at the side's rate) is split.
    function splitTax(PoolId id, bool buy, uint256 fee, uint256 baseFee) public view returns (Amounts memory a) {
        TaxPoolConfig storage c = _pools[id];
        TaxTerms memory t = c.terms;
        uint256 rate = buy ? t.buyTaxRate : t.sellTaxRate;
        if (rate > 0) {
            (, uint256 r2) = _split(rate, c.policy);
            uint256 d = rate * PS * PS;
            a.creator = baseFee * r2 * t.creatorShare / d;
            a.burn = baseFee * r2 * t.burnShare / d;
            a.dividend = baseFee * r2 * t.dividendShare / d;
            a.integrator = t.integratorFeeRecipient == address(0) ? 0 : baseFee * r2 * t.integratorShare / d;
            if (a.dividend > 0 && dividendDistributor.eligibleShares(c.token) == 0) a.dividend = 0;
        }
        a.protocol = fee - a.creator - a.burn - a.dividend - a.integrator;
    }

    function _distribute(PoolId id, address sender, bytes calldata hookData, bool buy, uint256 fee, uint256 baseFee)
        internal
        override
    {
        TaxPoolConfig storage c = _pools[id];
        address currency = quoteOf[id];
        Amounts memory a = splitTax(id, buy, fee, baseFee);
        _mintClaim(address(feeEscrow), currency, a.protocol + a.creator + a.integrator);
        if (a.protocol > 0) _credit(id, "PROTOCOL", c.policy.protocolFeeRecipient, currency, a.protocol);
        if (a.creator > 0) _credit(id, "CREATOR", c.terms.creatorFeeRecipient, currency, a.creator);
        if (a.integrator > 0) _credit(id, "INTEGRATOR", c.terms.integratorFeeRecipient, currency, a.integrator);
        if (a.burn > 0) {
            _mintClaim(DEAD, currency, a.burn);
            emit FeeComponentCredited(id, "BURN", DEAD, currency, a.burn);
        }
        if (a.dividend > 0) {
            _mintClaim(address(dividendDistributor), currency, a.dividend);
            dividendDistributor.allocate(c.token, a.dividend);
            emit FeeComponentCredited(id, "DIVIDEND", address(dividendDistributor), currency, a.dividend);
        }
        (address referrer, bytes32 comment) = _decodeHookData(hookData);
        if (!_validReferrer(referrer, sender, c.currentCreator, c.terms.creatorFeeRecipient)) referrer = address(0);
        emit Trade(id, sender, referrer, currency, fee, comment);
    }
}
